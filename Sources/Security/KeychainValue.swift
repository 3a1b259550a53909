// SPDX-License-Identifier: Apache-2.0
// A Sendable copy of one value from a caller's CF dictionary, and the way back to Foundation objects.

import Foundation

/// One dictionary value, read out of the caller's `CFDictionary` on the caller's thread so that no Foundation
/// object crosses to the operation thread.
enum KeychainValue: Sendable, Equatable {
    case string(String)
    case data(Data)
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case date(Date)
    /// A `kSecUseAuthenticationContext` value, reduced to what it decides.
    case authenticationContext(interactionAllowed: Bool)
    /// A `SecCertificate` or `SecKey` (as `kSecValueRef`).
    case reference(ItemReference)
    /// Anything else (arrays, references, …); the text names its type for diagnostics.
    case other(String)

    /// Reads a bridged Foundation value.
    ///
    /// Booleans need care: on Linux `true` arrives as `Bool`, `kCFBooleanTrue` as an `NSNumber` whose
    /// `objCType` is `c`, and `1` as an `NSNumber` that also casts to `Bool`; only the first two are booleans.
    init(_ value: Any) {
        if let string = value as? String {
            self = .string(string)
        } else if let data = value as? Data {
            self = .data(data)
        } else if let date = value as? Date {
            self = .date(date)
        } else if type(of: value) == Bool.self, let bool = value as? Bool {
            self = .bool(bool)
        } else if let reference = ItemReference(value) {
            self = .reference(reference)
        } else if let context = value as? LAContext {
            self = .authenticationContext(interactionAllowed: !context.interactionNotAllowed)
        } else if let number = value as? NSNumber {
            switch String(cString: number.objCType) {
            case "c", "B": self = .bool(number.boolValue)
            case "f", "d": self = .double(number.doubleValue)
            default: self = .integer(number.int64Value)
            }
        } else {
            self = .other(String(describing: type(of: value)))
        }
    }

    /// The value as a boolean, if it is one (`true`, `kCFBooleanTrue`, or the numbers 0 and 1 as Apple allows).
    var booleanValue: Bool? {
        switch self {
        case .bool(let value): value
        case .integer(0): false
        case .integer(1): true
        default: nil
        }
    }

    /// The Foundation object handed back to callers.
    var foundationObject: Any {
        switch self {
        case .string(let value): value
        case .data(let value): ContiguousData(value)
        case .bool(let value): value
        case .integer(let value): Int(value)
        case .double(let value): value
        case .date(let value): value
        case .authenticationContext(let allowed): allowed
        case .reference(let reference): reference.object as Any
        case .other(let value): value
        }
    }
}

/// Reads a caller's dictionary into Sendable values.
/// - Returns: the entries, or `nil` when a key is not a string (Apple answers `errSecParam`).
func readDictionary(_ dictionary: NSDictionary) -> [String: KeychainValue]? {
    var entries: [String: KeychainValue] = [:]
    for (key, value) in dictionary {
        guard let key = key as? String else { return nil }
        entries[key] = KeychainValue(value)
    }
    return entries
}

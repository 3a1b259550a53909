// SPDX-License-Identifier: Apache-2.0
// SecAccessControl, so code with biometric or passcode-protected items compiles; the keychain refuses it.

public import Foundation

// Apps commonly keep one code path that protects an item with Face ID, Touch ID or the passcode
// (`kSecAttrAccessControl`). A Secret Service provider has no such per-item policy, so SecItem calls given an
// access control answer errSecUnimplemented (mapping: kSecAttrAccessControl cannot be honoured) and store
// nothing. The object and its flags exist only so that such code builds and reaches that clear status instead of
// failing to compile as a whole.

/// The conditions of an access control, with Apple's raw values.
public struct SecAccessControlCreateFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let userPresence = SecAccessControlCreateFlags(rawValue: 1 << 0)
    public static let biometryAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    public static let touchIDAny = biometryAny
    public static let biometryCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    public static let touchIDCurrentSet = biometryCurrentSet
    public static let devicePasscode = SecAccessControlCreateFlags(rawValue: 1 << 4)
    public static let watch = SecAccessControlCreateFlags(rawValue: 1 << 5)
    public static let or = SecAccessControlCreateFlags(rawValue: 1 << 14)
    public static let and = SecAccessControlCreateFlags(rawValue: 1 << 15)
    public static let privateKeyUsage = SecAccessControlCreateFlags(rawValue: 1 << 30)
    public static let applicationPassword = SecAccessControlCreateFlags(rawValue: 1 << 31)
}

/// An accessibility class plus conditions. SecItem calls answer `errSecUnimplemented` when given one.
/// Equal and hashed by protection and flags: two made from the same arguments are interchangeable, as Apple's
/// `CFEqual` treats them.
public final class SecAccessControl: Sendable, Hashable, CustomStringConvertible {
    let protection: String
    let flags: SecAccessControlCreateFlags

    init(protection: String, flags: SecAccessControlCreateFlags) {
        self.protection = protection
        self.flags = flags
    }

    public var description: String { "<SecAccessControl protection: \(protection), flags: \(flags.rawValue)>" }

    public static func == (lhs: SecAccessControl, rhs: SecAccessControl) -> Bool {
        lhs.protection == rhs.protection && lhs.flags == rhs.flags
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(protection)
        hasher.combine(flags.rawValue)
    }
}

/// Makes an access control from an accessibility value (`kSecAttrAccessible…`) and conditions.
/// - Returns: the object, or `nil` with an `NSOSStatusErrorDomain` `errSecParam` error when `protection` is not
///   an accessibility value. Adding an item with it is `errSecUnimplemented`.
public func SecAccessControlCreateWithFlags(_ allocator: CFAllocator?, _ protection: CFTypeRef,
                                            _ flags: SecAccessControlCreateFlags,
                                            _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecAccessControl? {
    let accessibilities = ["ak", "ck", "dk", "aku", "cku", "dku", "akpu"]
    guard let protection = protection as? String, accessibilities.contains(protection) else {
        error?.pointee = Unmanaged.passRetained(NSError(domain: NSOSStatusErrorDomain, code: Int(errSecParam)))
        return nil
    }
    return SecAccessControl(protection: protection, flags: flags)
}

// SPDX-License-Identifier: Apache-2.0
// CFGetTypeID and the …GetTypeID functions Security code compares it with, on Linux.

#if !canImport(Darwin)
import Foundation

// On Apple platforms `item as? SecCertificate` draws a warning (a conditional cast to a CoreFoundation type always
// succeeds), so keychain code checks `CFGetTypeID(item) == SecCertificateGetTypeID()` before `as!`. Here the
// identifiers are this library's own numbers (Apple's differ between releases and code never hard-codes them);
// what matters is that each kind of object a keychain call hands out answers to the function of its kind.

/// A CoreFoundation type identifier.
public typealias CFTypeID = UInt

private enum TypeID: CFTypeID {
    case unknown = 0, data, string, dictionary, array, number, boolean, date, certificate, key
}

/// The type identifier of `cf`'s kind, as the `…GetTypeID()` functions return them; 0 for other objects.
public func CFGetTypeID(_ cf: CFTypeRef?) -> CFTypeID {
    let kind: TypeID = switch cf {
    case is SecCertificate: .certificate
    case is SecKey: .key
    case is NSData: .data
    case is NSString: .string
    case is NSDictionary: .dictionary
    case is NSArray: .array
    case is NSDate: .date
    case let number as NSNumber: ["c", "B"].contains(String(cString: number.objCType)) ? .boolean : .number
    default: .unknown
    }
    return kind.rawValue
}

/// The type identifier of `CFData` objects.
public func CFDataGetTypeID() -> CFTypeID { TypeID.data.rawValue }
/// The type identifier of `CFString` objects.
public func CFStringGetTypeID() -> CFTypeID { TypeID.string.rawValue }
/// The type identifier of `CFDictionary` objects.
public func CFDictionaryGetTypeID() -> CFTypeID { TypeID.dictionary.rawValue }
/// The type identifier of `CFArray` objects.
public func CFArrayGetTypeID() -> CFTypeID { TypeID.array.rawValue }
/// The type identifier of `CFNumber` objects.
public func CFNumberGetTypeID() -> CFTypeID { TypeID.number.rawValue }
/// The type identifier of `CFBoolean` objects (`kCFBooleanTrue`, `kCFBooleanFalse`).
public func CFBooleanGetTypeID() -> CFTypeID { TypeID.boolean.rawValue }
/// The type identifier of `CFDate` objects.
public func CFDateGetTypeID() -> CFTypeID { TypeID.date.rawValue }
/// The type identifier of `SecCertificate` objects.
public func SecCertificateGetTypeID() -> CFTypeID { TypeID.certificate.rawValue }
/// The type identifier of `SecKey` objects.
public func SecKeyGetTypeID() -> CFTypeID { TypeID.key.rawValue }
#endif

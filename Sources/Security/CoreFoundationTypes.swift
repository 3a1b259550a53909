// SPDX-License-Identifier: Apache-2.0
// The CoreFoundation names SecItem code uses, which swift-corelibs-foundation does not define on Linux.

#if !canImport(Darwin)
public import Foundation

// swift-corelibs-foundation has no CFDictionary/CFString/CFTypeRef in Swift, but it does bridge Swift values to
// the NS classes with `as` (`[String: Any] as NSDictionary`, `NSString as String`, `item as? [String: Any]`).
// Aliasing the CF names to those classes is what makes Apple's snippets (`query as CFDictionary`,
// `var item: CFTypeRef?`, `kSecClass as String`) compile unchanged.

/// Apple's toll-free bridged dictionary; here the Foundation class Swift dictionaries bridge to.
public typealias CFDictionary = NSDictionary
/// Apple's mutable dictionary counterpart.
public typealias CFMutableDictionary = NSMutableDictionary
/// Apple's toll-free bridged string; `kSec…` constants have this type.
public typealias CFString = NSString
/// Apple's toll-free bridged byte buffer.
public typealias CFData = NSData
/// Apple's toll-free bridged array.
public typealias CFArray = NSArray
/// Apple's toll-free bridged number.
public typealias CFNumber = NSNumber
/// Apple's boolean object; Foundation represents booleans as `NSNumber`.
public typealias CFBoolean = NSNumber
/// Apple's toll-free bridged date.
public typealias CFDate = NSDate
/// Any CoreFoundation object: results of `SecItemCopyMatching` arrive as one.
public typealias CFTypeRef = AnyObject
/// Apple's memory allocator handle; Security functions accept one and ignore it here.
public final class CFAllocator: Sendable {}
/// The default allocator, as callers pass it to `SecCertificateCreateWithData`.
public let kCFAllocatorDefault: CFAllocator? = nil
/// Apple's toll-free bridged error; `SecKey…` functions report failures as one.
public typealias CFError = NSError
/// The result code of every Security function (`errSec…` constants).
public typealias OSStatus = Int32

/// The generic "no error" status, equal to `errSecSuccess`.
public let noErr: OSStatus = 0

/// The boolean true object, for dictionaries such as `[kSecReturnData: kCFBooleanTrue]`.
public let kCFBooleanTrue: CFBoolean! = NSNumber(value: true)
/// The boolean false object.
public let kCFBooleanFalse: CFBoolean! = NSNumber(value: false)

// Keychain code written against Darwin's Foundation builds queries and reads results through key-value coding
// (`query.setValue(kSecClassGenericPassword, forKey: kSecClass as String)`, `result.value(forKey: …)`).
// swift-corelibs-foundation has no key-value coding; for dictionaries these two calls mean plain key access.

extension NSDictionary {
    /// The value stored under `key`, as Darwin's key-value coding answers for a dictionary.
    @_disfavoredOverload
    public func value(forKey key: String) -> Any? { object(forKey: key) }
}

extension NSMutableDictionary {
    /// Stores `value` under `key`, or removes the key for `nil`, as Darwin's key-value coding does.
    @_disfavoredOverload
    public func setValue(_ value: Any?, forKey key: String) {
        if let value { setObject(value, forKey: key as NSString) } else { removeObject(forKey: key) }
    }
}
#endif

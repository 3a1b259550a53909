// SPDX-License-Identifier: Apache-2.0
// The CFError functions and the few other CoreFoundation names keychain wrappers call, on Linux.

#if !canImport(Darwin)
public import Foundation

// Wrappers turn the `Unmanaged<CFError>` a SecKey or SecAccessControl call filled in into their own error with
// these functions; CFError is NSError here, so each is the matching NSError property.

/// CoreFoundation's signed size and index type.
public typealias CFIndex = Int
/// CoreFoundation's option-flags type (`CFStringCompareFlags`, `CFPropertyListMutabilityOptions`, …).
public typealias CFOptionFlags = UInt
/// The name of an error domain, such as `kCFErrorDomainOSStatus`.
public typealias CFErrorDomain = CFString

/// The domain of OSStatus errors (what Security functions report): Apple's `NSOSStatusErrorDomain`.
nonisolated(unsafe) public let kCFErrorDomainOSStatus: CFErrorDomain = NSString(string: NSOSStatusErrorDomain)

/// The info-dictionary key of an app's bundle identifier, which wrappers use as their default service name.
nonisolated(unsafe) public let kCFBundleIdentifierKey: CFString = "CFBundleIdentifier"

/// The error's domain.
public func CFErrorGetDomain(_ error: CFError) -> CFErrorDomain { NSString(string: error.domain) }

/// The error's code: for Security's errors, the OSStatus.
public func CFErrorGetCode(_ error: CFError) -> CFIndex { error.code }

/// A copy of the error's user-info dictionary (empty when it has none).
public func CFErrorCopyUserInfo(_ error: CFError) -> CFDictionary { NSDictionary(dictionary: error.userInfo) }

/// The error's description, as `CFErrorCopyDescription` gives it.
public func CFErrorCopyDescription(_ error: CFError) -> CFString { NSString(string: error.localizedDescription) }
#endif

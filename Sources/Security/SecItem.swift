// SPDX-License-Identifier: Apache-2.0
// SecItemAdd, SecItemCopyMatching, SecItemUpdate and SecItemDelete with Apple's signatures and iOS semantics.

public import Foundation
import CofferKeychainConfiguration

// Each function reads the caller's dictionary into a Sendable SecItemCall on the caller's thread, runs it on the
// shared connection's loop thread (see SecItemCall.runBlocking), blocks until it ends, and builds the result objects
// back on the caller's thread. CofferKeychain's async API runs the same calls with SecItemCall.run, awaiting instead
// of blocking.
// They are @discardableResult because Swift imports Apple's C functions that way: iOS code that ignores the
// status (`SecItemDelete(query)`) compiles there without a warning, and must here too.

/// Adds an item to the keychain (here: the Secret Service provider's default collection).
///
/// Supported classes are generic and internet passwords, certificates (DER in `kSecValueData`, or a
/// `SecCertificate` in `kSecValueRef`) and keys (Apple's external representation with `kSecAttrKeyClass` and
/// `kSecAttrKeyType`, or a `SecKey` in `kSecValueRef`); identities return `errSecUnimplemented`. An item with the
/// same primary key (for example service + account + access group) makes this return `errSecDuplicateItem`.
/// - Parameters:
///   - attributes: the class, attributes, `kSecValueData`, and optionally `kSecReturn…` keys.
///   - result: receives what the return keys ask for; may be `nil` only when no return key is set.
/// - Returns: `errSecSuccess` or an `errSec…` code.
@discardableResult
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    result?.pointee = nil
    switch SecItemCall.add(attributes, resultRequested: result != nil) {
    case .failure(let failure): return failure.status
    case .success(let call): return deliver(call.runBlocking(), to: result)
    }
}

/// Searches the keychain.
///
/// The default limit is one. With no match the status is `errSecItemNotFound` (never an empty array). With no
/// return key the call only checks existence and leaves `result` `nil`.
/// - Parameters:
///   - query: the class (or `kSecValuePersistentRef`), attributes to match, `kSecMatch…`, `kSecReturn…` and
///     `kSecUse…` keys.
///   - result: receives the bare value, a dictionary, or (for limits other than one) an array of them.
/// - Returns: `errSecSuccess` or an `errSec…` code.
@discardableResult
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    result?.pointee = nil
    switch SecItemCall.copyMatching(query, resultRequested: result != nil) {
    case .failure(let failure): return failure.status
    case .success(let call): return deliver(call.runBlocking(), to: result)
    }
}

/// Changes every item that matches `query` (iOS semantics; the match limit is ignored).
/// - Parameters:
///   - query: the class (or `kSecValuePersistentRef`) and attributes selecting the items; no `kSecReturn…` keys.
///   - attributesToUpdate: the attributes and/or `kSecValueData` to set; no `kSecMatch…`, `kSecReturn…` or
///     `kSecUse…` keys.
/// - Returns: `errSecSuccess`, `errSecItemNotFound` when nothing matched, `errSecDuplicateItem` when the change
///   would give two items the same primary key (then nothing is written), or another `errSec…` code.
@discardableResult
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    switch SecItemCall.update(query, attributesToUpdate) {
    case .failure(let failure): return failure.status
    case .success(let call): return deliver(call.runBlocking(), to: nil)
    }
}

/// Deletes every item that matches `query` (iOS semantics).
/// - Parameter query: the class (or `kSecValuePersistentRef`) and attributes; `kSecMatchLimitAll` is tolerated,
///   any other `kSecMatch…` or a `kSecReturn…` key is `errSecParam`.
/// - Returns: `errSecSuccess`, `errSecItemNotFound` when nothing matched, or another `errSec…` code.
@discardableResult
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    switch SecItemCall.delete(query) {
    case .failure(let failure): return failure.status
    case .success(let call): return deliver(call.runBlocking(), to: nil)
    }
}

/// Stores a successful result in the caller's pointer and returns the status.
func deliver(_ outcome: Result<ItemResult?, KeychainFailure>, to result: UnsafeMutablePointer<CFTypeRef?>?)
    -> OSStatus {
    switch outcome {
    case .success(let value):
        result?.pointee = value?.object
        return errSecSuccess
    case .failure(let failure):
        return failure.status
    }
}

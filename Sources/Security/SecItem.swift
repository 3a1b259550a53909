// SPDX-License-Identifier: Apache-2.0
// SecItemAdd, SecItemCopyMatching, SecItemUpdate and SecItemDelete with Apple's signatures and iOS semantics.

public import Foundation
import CofferKeychainConfiguration

// Each function reads the caller's dictionary into Sendable values on the caller's thread, runs the operation on
// the shared connection's loop thread (see OperationContext.performBlocking), blocks until it ends, and builds the
// result objects back on the caller's thread. Writes also hold the cross-process FileLock for their whole search-then-write sequence.
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
    switch parse(attributes, role: .add) {
    case .failure(let failure): return failure.status
    case .success(let query):
        if query.requestsResult, result == nil { return errSecParam }
        return deliver(run(query, writing: true) { try await $0.add(query) }, to: result)
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
    switch parse(query, role: .search) {
    case .failure(let failure): return failure.status
    case .success(let parsed):
        if parsed.requestsResult, result == nil { return errSecParam }
        return deliver(run(parsed, writing: false) { try await $0.copyMatching(parsed) }, to: result)
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
    let parsed: ItemQuery
    let update: ItemQuery
    switch (parse(query, role: .updateQuery), parse(attributesToUpdate, role: .updateAttributes, classFrom: query)) {
    case (.failure(let failure), _), (_, .failure(let failure)): return failure.status
    case (.success(let q), .success(let u)):
        parsed = q
        update = u
    }
    return deliver(run(parsed, writing: true) { try await $0.update(parsed, with: update) }.map { nil }, to: nil)
}

/// Deletes every item that matches `query` (iOS semantics).
/// - Parameter query: the class (or `kSecValuePersistentRef`) and attributes; `kSecMatchLimitAll` is tolerated,
///   any other `kSecMatch…` or a `kSecReturn…` key is `errSecParam`.
/// - Returns: `errSecSuccess`, `errSecItemNotFound` when nothing matched, or another `errSec…` code.
@discardableResult
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    switch parse(query, role: .delete) {
    case .failure(let failure): return failure.status
    case .success(let parsed):
        return deliver(run(parsed, writing: true) { try await $0.delete(parsed) }.map { nil }, to: nil)
    }
}

/// Reads one SecItem dictionary for `role`: routes its keys and checks its attributes against its class (for the
/// attributes of an update, the class named by the query in `classFrom`).
private func parse(_ dictionary: CFDictionary, role: ItemQuery.Role, classFrom query: CFDictionary? = nil)
    -> Result<ItemQuery, KeychainFailure> {
    guard let entries = readDictionary(dictionary) else { return .failure(KeychainFailure(errSecParam)) }
    do {
        let parsed = try ItemQuery(entries, role: role)
        var itemClass = parsed.itemClass
        if let query, let entries = readDictionary(query) {
            itemClass = (try? ItemQuery(entries, role: .updateQuery))?.itemClass
        }
        if let schema = itemClass.flatMap(ItemSchema.forClass) {
            try parsed.validateAttributes(against: schema, role: role)
        }
        return .success(parsed)
    } catch {
        return .failure(error)
    }
}

/// Runs one operation on the connection's loop thread, blocking the caller as Apple's functions do. Writes hold the
/// cross-process lock so search-then-create stays unique, and fail when it cannot be taken.
private func run<T: Sendable>(_ query: ItemQuery, writing: Bool,
                              _ body: @escaping @Sendable (OperationContext) async throws -> T)
    -> Result<T, KeychainFailure> {
    let configuration = KeychainConfiguration.current
    let operation = { OperationContext.performBlocking(configuration, interaction: query.authenticationUI, body) }
    guard writing else { return operation() }
    do throws(KeychainFailure) {
        let lock = try FileLock.acquire(for: configuration)
        defer { withExtendedLifetime(lock) {} }
        return operation()
    } catch {
        return .failure(error)
    }
}

/// Stores a successful result in the caller's pointer and returns the status.
private func deliver(_ outcome: Result<ItemResult?, KeychainFailure>,
                     to result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    switch outcome {
    case .success(let value):
        result?.pointee = value?.object
        return errSecSuccess
    case .failure(let failure):
        return failure.status
    }
}

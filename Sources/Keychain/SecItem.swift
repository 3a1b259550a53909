// SPDX-License-Identifier: Apache-2.0
// SecItemAdd, SecItemCopyMatching, SecItemUpdate and SecItemDelete with Apple's signatures and iOS semantics.

public import Foundation

// Each function reads the caller's dictionary into Sendable values on the caller's thread, runs the operation on
// the library's own thread (see OperationThread), blocks until it ends, and builds the result objects back on the
// caller's thread. Writes also hold the cross-process FileLock for their whole search-then-write sequence.

/// Adds an item to the keychain (here: the Secret Service provider's default collection).
///
/// Supported classes are `kSecClassGenericPassword` and `kSecClassInternetPassword`; others return
/// `errSecUnimplemented`. An item with the same primary key (for example service + account + access group) makes
/// this return `errSecDuplicateItem`.
/// - Parameters:
///   - attributes: the class, attributes, `kSecValueData`, and optionally `kSecReturn…` keys.
///   - result: receives what the return keys ask for; may be `nil` only when no return key is set.
/// - Returns: `errSecSuccess` or an `errSec…` code.
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    result?.pointee = nil
    guard let entries = readDictionary(attributes) else { return errSecParam }
    let query: ItemQuery
    do {
        query = try ItemQuery(entries, role: .add)
        if let schema = query.itemClass.flatMap(ItemSchema.forClass) {
            try query.validateAttributes(against: schema, role: .add)
        }
    } catch {
        return error.status
    }
    if query.requestsResult, result == nil { return errSecParam }
    let configuration = KeychainConfiguration.current
    let lock = FileLock.acquire(for: configuration)
    defer { withExtendedLifetime(lock) {} }
    let outcome = OperationThread.runBlocking {
        await OperationContext.perform(configuration, interaction: query.authenticationUI) { try await $0.add(query) }
    }
    return deliver(outcome, to: result)
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
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    result?.pointee = nil
    guard let entries = readDictionary(query) else { return errSecParam }
    let parsed: ItemQuery
    do {
        parsed = try ItemQuery(entries, role: .search)
        if let schema = parsed.itemClass.flatMap(ItemSchema.forClass) {
            try parsed.validateAttributes(against: schema, role: .search)
        }
    } catch {
        return error.status
    }
    if parsed.requestsResult, result == nil { return errSecParam }
    let configuration = KeychainConfiguration.current
    let outcome = OperationThread.runBlocking {
        await OperationContext.perform(configuration, interaction: parsed.authenticationUI) {
            try await $0.copyMatching(parsed)
        }
    }
    return deliver(outcome, to: result)
}

/// Changes every item that matches `query` (iOS semantics; the match limit is ignored).
/// - Parameters:
///   - query: the class (or `kSecValuePersistentRef`) and attributes selecting the items; no `kSecReturn…` keys.
///   - attributesToUpdate: the attributes and/or `kSecValueData` to set; no `kSecMatch…`, `kSecReturn…` or
///     `kSecUse…` keys.
/// - Returns: `errSecSuccess`, `errSecItemNotFound` when nothing matched, `errSecDuplicateItem` when the change
///   would give two items the same primary key (then nothing is written), or another `errSec…` code.
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    guard let entries = readDictionary(query), let changes = readDictionary(attributesToUpdate) else {
        return errSecParam
    }
    let parsed: ItemQuery
    let update: ItemQuery
    do {
        parsed = try ItemQuery(entries, role: .updateQuery)
        update = try ItemQuery(changes, role: .updateAttributes)
        if let schema = parsed.itemClass.flatMap(ItemSchema.forClass) {
            try parsed.validateAttributes(against: schema, role: .updateQuery)
            try update.validateAttributes(against: schema, role: .updateAttributes)
        }
    } catch {
        return error.status
    }
    let configuration = KeychainConfiguration.current
    let lock = FileLock.acquire(for: configuration)
    defer { withExtendedLifetime(lock) {} }
    let outcome = OperationThread.runBlocking {
        await OperationContext.perform(configuration, interaction: parsed.authenticationUI) {
            try await $0.update(parsed, with: update)
        }
    }
    return deliver(outcome.map { nil }, to: nil)
}

/// Deletes every item that matches `query` (iOS semantics).
/// - Parameter query: the class (or `kSecValuePersistentRef`) and attributes; `kSecMatchLimitAll` is tolerated,
///   any other `kSecMatch…` or a `kSecReturn…` key is `errSecParam`.
/// - Returns: `errSecSuccess`, `errSecItemNotFound` when nothing matched, or another `errSec…` code.
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    guard let entries = readDictionary(query) else { return errSecParam }
    let parsed: ItemQuery
    do {
        parsed = try ItemQuery(entries, role: .delete)
        if let schema = parsed.itemClass.flatMap(ItemSchema.forClass) {
            try parsed.validateAttributes(against: schema, role: .delete)
        }
    } catch {
        return error.status
    }
    let configuration = KeychainConfiguration.current
    let lock = FileLock.acquire(for: configuration)
    defer { withExtendedLifetime(lock) {} }
    let outcome = OperationThread.runBlocking {
        await OperationContext.perform(configuration, interaction: parsed.authenticationUI) {
            try await $0.delete(parsed)
        }
    }
    return deliver(outcome.map { nil }, to: nil)
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

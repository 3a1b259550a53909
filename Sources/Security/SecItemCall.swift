// SPDX-License-Identifier: Apache-2.0
// One SecItem call read from the caller's dictionaries, run either blocking (the SecItem functions) or awaited
// (CofferKeychain's async API): both run the same async core on the shared connection's loop.

import Foundation
import CofferKeychainConfiguration

/// A `SecItem…` call whose dictionaries have been read into Sendable values, ready to run.
struct SecItemCall: Sendable {
    let query: ItemQuery
    /// Writes hold the cross-process lock so that search-then-create stays unique.
    let writing: Bool
    /// Read where the call was made, so a task-bound configuration applies.
    let configuration: KeychainConfiguration
    let body: @Sendable (OperationContext) async throws -> ItemResult?

    // MARK: - Reading the dictionaries

    static func add(_ attributes: CFDictionary, resultRequested: Bool) -> Result<SecItemCall, KeychainFailure> {
        parse(attributes, role: .add).flatMap { query in
            if query.requestsResult, !resultRequested { return .failure(KeychainFailure(errSecParam)) }
            return .success(SecItemCall(query: query, writing: true) { try await $0.add(query) })
        }
    }

    static func copyMatching(_ query: CFDictionary, resultRequested: Bool) -> Result<SecItemCall, KeychainFailure> {
        parse(query, role: .search).flatMap { parsed in
            if parsed.requestsResult, !resultRequested { return .failure(KeychainFailure(errSecParam)) }
            return .success(SecItemCall(query: parsed, writing: false) { try await $0.copyMatching(parsed) })
        }
    }

    static func update(_ query: CFDictionary, _ attributesToUpdate: CFDictionary)
        -> Result<SecItemCall, KeychainFailure> {
        switch (parse(query, role: .updateQuery),
                parse(attributesToUpdate, role: .updateAttributes, classFrom: query)) {
        case (.failure(let failure), _), (_, .failure(let failure)):
            return .failure(failure)
        case (.success(let parsed), .success(let update)):
            return .success(SecItemCall(query: parsed, writing: true) { context in
                try await context.update(parsed, with: update)
                return nil
            })
        }
    }

    static func delete(_ query: CFDictionary) -> Result<SecItemCall, KeychainFailure> {
        parse(query, role: .delete).map { parsed in
            SecItemCall(query: parsed, writing: true) { context in
                try await context.delete(parsed)
                return nil
            }
        }
    }

    private init(query: ItemQuery, writing: Bool,
                 _ body: @escaping @Sendable (OperationContext) async throws -> ItemResult?) {
        self.query = query
        self.writing = writing
        self.body = body
        configuration = KeychainConfiguration.current
    }

    /// Reads one SecItem dictionary for `role`: routes its keys and checks its attributes against its class (for
    /// the attributes of an update, the class named by the query in `classFrom`).
    private static func parse(_ dictionary: CFDictionary, role: ItemQuery.Role, classFrom query: CFDictionary? = nil)
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

    // MARK: - Running

    /// Runs the call and blocks the calling thread until it ends, as Apple's functions do (the caller sleeps once;
    /// see ``OperationContext/performBlocking(_:interaction:_:)``). A write takes the lock here, on the caller's
    /// thread, never on the loop.
    func runBlocking() -> Result<ItemResult?, KeychainFailure> {
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

    /// Runs the call without blocking any thread: the core runs on the connection's loop and the caller's task
    /// resumes when it ends. A write waits for the lock without occupying a thread of the concurrency pool (see
    /// ``FileLock/acquire(for:)``).
    func run() async -> Result<ItemResult?, KeychainFailure> {
        let interaction = query.authenticationUI
        guard writing else { return await OperationContext.perform(configuration, interaction: interaction, body) }
        do throws(KeychainFailure) {
            let lock = try await FileLock.acquire(for: configuration)
            let outcome = await OperationContext.perform(configuration, interaction: interaction, body)
            withExtendedLifetime(lock) {}
            return outcome
        } catch {
            return .failure(error)
        }
    }
}

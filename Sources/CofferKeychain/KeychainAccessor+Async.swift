// SPDX-License-Identifier: Apache-2.0
// `Keychain`'s async variants: they await the same core as the blocking calls, on the shared connection's loop.

public import Foundation
import Security

extension Keychain {
    /// Runs `body` with this keychain's configuration in force (task-locals reach everything it awaits).
    private func boundAsync<T>(_ body: () async throws(Error) -> T) async throws(Error) -> T {
        guard let configuration else { return try await body() }
        let result: Result<T, Error> = await KeychainConfiguration.withConfiguration(configuration) {
            do throws(Error) {
                return .success(try await body())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Async ``get(_:)``.
    public func get(_ key: String) async throws(Error) -> String? { try Self.text(try await getData(key)) }

    /// Async ``getData(_:)``.
    public func getData(_ key: String) async throws(Error) -> Data? {
        try await boundAsync { () async throws(Error) -> Data? in
            let (status, item) = await SecItemAsync.copyMatching(dataQuery(key) as CFDictionary)
            return try Self.data(status, item)
        }
    }

    /// Async ``get(_:as:)``.
    public func get<T: Decodable & Sendable>(_ key: String, as type: T.Type) async throws(Error) -> T? {
        try Self.decode(try await getData(key), as: type)
    }

    /// Async ``contains(_:)``.
    public func contains(_ key: String) async throws(Error) -> Bool {
        try await boundAsync { () async throws(Error) -> Bool in
            try Self.exists(await SecItemAsync.copyMatching(searchQuery(key) as CFDictionary, wantsResult: false).status)
        }
    }

    /// Async ``allKeys()``.
    public func allKeys() async throws(Error) -> [String] {
        try await boundAsync { () async throws(Error) -> [String] in
            let (status, items) = await SecItemAsync.copyMatching(keysQuery as CFDictionary)
            return try Self.keys(status, items)
        }
    }

    /// Async ``set(_:key:)-(String,_)``.
    public func set(_ value: String, key: String) async throws(Error) { try await set(Data(value.utf8), key: key) }

    /// Async ``set(_:key:)-(Data,_)``.
    public func set(_ value: Data, key: String) async throws(Error) {
        try await boundAsync { () async throws(Error) in
            for _ in 0..<2 {
                if try Self.added(await SecItemAsync.add(newItem(value, key: key) as CFDictionary).status) { return }
                let status = await SecItemAsync.update(existingItem(key) as CFDictionary,
                                                       change(to: value) as CFDictionary)
                if try Self.updated(status) { return }
            }
            throw .duplicateItem
        }
    }

    /// Async JSON ``set(_:key:)``.
    public func set(_ value: some Encodable & Sendable, key: String) async throws(Error) {
        try await set(try Self.encode(value), key: key)
    }

    /// Async ``remove(_:)``.
    public func remove(_ key: String) async throws(Error) { try await delete(searchQuery(key)) }

    /// Async ``removeAll()``.
    public func removeAll() async throws(Error) { try await delete(searchQuery(nil)) }

    private func delete(_ query: [String: Any]) async throws(Error) {
        try await boundAsync { () async throws(Error) in
            try Self.deleted(await SecItemAsync.delete(query as CFDictionary))
        }
    }
}

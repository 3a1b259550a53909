// SPDX-License-Identifier: Apache-2.0
// `Keychain`'s async variants: the blocking calls run on a thread of their own, never on a concurrency-pool thread.

public import Foundation

extension Keychain {
    /// Runs a blocking call on a fresh thread and suspends until it ends.
    ///
    /// The SecItem functions block (as Apple's do); running them on a pool thread from many tasks at once could
    /// occupy every pool thread. A short-lived thread per call costs microseconds next to a D-Bus round trip. The
    /// task's configuration is captured here, since task-locals do not reach the other thread.
    private func offPool<T: Sendable>(_ body: @escaping @Sendable (Keychain) throws(Error) -> T) async throws(Error)
        -> T {
        let keychain = configuration == nil ? self.configuration(KeychainConfiguration.current) : self
        let result: Result<T, Error> = await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: Result { () throws(Error) in try body(keychain) })
            }
            thread.name = "coffer.keychain.call"
            thread.start()
        }
        return try result.get()
    }

    /// Async ``get(_:)``.
    public func get(_ key: String) async throws(Error) -> String? {
        try await offPool { keychain throws(Error) in try keychain.getString(key) }
    }

    /// Async ``getData(_:)``.
    public func getData(_ key: String) async throws(Error) -> Data? {
        try await offPool { keychain throws(Error) in try keychain.getData(key) }
    }

    /// Async ``get(_:as:)``.
    public func get<T: Decodable & Sendable>(_ key: String, as type: T.Type) async throws(Error) -> T? {
        try await offPool { keychain throws(Error) in try keychain.get(key, as: type) }
    }

    /// Async ``contains(_:)``.
    public func contains(_ key: String) async throws(Error) -> Bool {
        try await offPool { keychain throws(Error) in try keychain.contains(key) }
    }

    /// Async ``allKeys()``.
    public func allKeys() async throws(Error) -> [String] {
        try await offPool { keychain throws(Error) in try keychain.allKeys() }
    }

    /// Async ``set(_:key:)-(String,_)``.
    public func set(_ value: String, key: String) async throws(Error) {
        try await offPool { keychain throws(Error) in try keychain.set(value, key: key) }
    }

    /// Async ``set(_:key:)-(Data,_)``.
    public func set(_ value: Data, key: String) async throws(Error) {
        try await offPool { keychain throws(Error) in try keychain.set(value, key: key) }
    }

    /// Async JSON ``set(_:key:)``.
    public func set(_ value: some Encodable & Sendable, key: String) async throws(Error) {
        try await offPool { keychain throws(Error) in try keychain.set(value, key: key) }
    }

    /// Async ``remove(_:)``.
    public func remove(_ key: String) async throws(Error) {
        try await offPool { keychain throws(Error) in try keychain.remove(key) }
    }

    /// Async ``removeAll()``.
    public func removeAll() async throws(Error) {
        try await offPool { keychain throws(Error) in try keychain.removeAll() }
    }
}

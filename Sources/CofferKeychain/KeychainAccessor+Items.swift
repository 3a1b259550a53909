// SPDX-License-Identifier: Apache-2.0
// `Keychain`'s synchronous reads, writes and deletes by key, its subscripts and Codable values.

public import Foundation

// Each call builds its dictionaries and reads its statuses with the helpers in KeychainAccessor+Queries.swift, which
// the async variants (KeychainAccessor+Async.swift) share; only how the SecItem call is made differs.

extension Keychain {
    // MARK: - Reading

    /// The value stored under `key` as text.
    /// - Returns: the text, or `nil` when there is no such item.
    /// - Throws: ``Error/conversionFailed`` when the value is not UTF-8; other cases as the SecItem status says.
    public func get(_ key: String) throws(Error) -> String? { try getString(key) }

    /// The value stored under `key` as text (see ``get(_:)``).
    public func getString(_ key: String) throws(Error) -> String? { try Self.text(try getData(key)) }

    /// The bytes stored under `key`, or `nil` when there is no such item.
    public func getData(_ key: String) throws(Error) -> Data? {
        try bound { () throws(Error) -> Data? in
            var item: CFTypeRef?
            let status = SecItemCopyMatching(dataQuery(key) as CFDictionary, &item)
            return try Self.data(status, item)
        }
    }

    /// The JSON-decoded value stored under `key`, or `nil` when there is no such item.
    /// - Throws: ``Error/conversionFailed`` when the stored bytes do not decode as `type`.
    public func get<T: Decodable>(_ key: String, as type: T.Type) throws(Error) -> T? {
        try Self.decode(try getData(key), as: type)
    }

    /// Whether an item exists under `key` (no secret is read).
    public func contains(_ key: String) throws(Error) -> Bool {
        try bound { () throws(Error) -> Bool in
            try Self.exists(SecItemCopyMatching(searchQuery(key) as CFDictionary, nil))
        }
    }

    /// Every key (account) of this keychain's items, oldest first.
    public func allKeys() throws(Error) -> [String] {
        try bound { () throws(Error) -> [String] in
            var items: CFTypeRef?
            let status = SecItemCopyMatching(keysQuery as CFDictionary, &items)
            return try Self.keys(status, items)
        }
    }

    // MARK: - Writing

    /// Stores `value` as UTF-8 under `key`, replacing any value there.
    public func set(_ value: String, key: String) throws(Error) { try set(Data(value.utf8), key: key) }

    /// Stores `value` under `key`, replacing any value there, with this keychain's label, comment and accessibility.
    ///
    /// Adds first and updates on `errSecDuplicateItem`, so two writers racing on a new key never create two items.
    public func set(_ value: Data, key: String) throws(Error) {
        try bound { () throws(Error) in
            for _ in 0..<2 {
                if try Self.added(SecItemAdd(newItem(value, key: key) as CFDictionary, nil)) { return }
                let status = SecItemUpdate(existingItem(key) as CFDictionary, change(to: value) as CFDictionary)
                if try Self.updated(status) { return }
            }
            throw .duplicateItem
        }
    }

    /// Stores `value` JSON-encoded under `key`.
    /// - Throws: ``Error/conversionFailed`` when `value` does not encode.
    public func set(_ value: some Encodable, key: String) throws(Error) { try set(try Self.encode(value), key: key) }

    // MARK: - Removing

    /// Removes the item under `key` (synchronizable or not); nothing there is not an error.
    public func remove(_ key: String) throws(Error) { try delete(searchQuery(key)) }

    /// Removes every item of this keychain; none is not an error.
    public func removeAll() throws(Error) { try delete(searchQuery(nil)) }

    private func delete(_ query: [String: Any]) throws(Error) {
        try bound { () throws(Error) in try Self.deleted(SecItemDelete(query as CFDictionary)) }
    }

    // MARK: - Subscripts (errors read as nil, as in KeychainAccess; use the throwing calls to see them)

    /// The text under `key`; assigning `nil` removes it.
    public subscript(key: String) -> String? {
        get { try? getString(key) }
        nonmutating set {
            if let newValue { try? set(newValue, key: key) } else { try? remove(key) }
        }
    }

    /// The text under `key`; assigning `nil` removes it.
    public subscript(string key: String) -> String? {
        get { self[key] }
        nonmutating set { self[key] = newValue }
    }

    /// The bytes under `key`; assigning `nil` removes them.
    public subscript(data key: String) -> Data? {
        get { try? getData(key) }
        nonmutating set {
            if let newValue { try? set(newValue, key: key) } else { try? remove(key) }
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// `Keychain`'s synchronous reads, writes and deletes by key, its subscripts and Codable values.

public import Foundation

extension Keychain {
    // MARK: - Reading

    /// The value stored under `key` as text.
    /// - Returns: the text, or `nil` when there is no such item.
    /// - Throws: ``Error/conversionFailed`` when the value is not UTF-8; other cases as the SecItem status says.
    public func get(_ key: String) throws(Error) -> String? { try getString(key) }

    /// The value stored under `key` as text (see ``get(_:)``).
    public func getString(_ key: String) throws(Error) -> String? {
        guard let data = try getData(key) else { return nil }
        guard let text = String(data: data, encoding: .utf8) else { throw .conversionFailed }
        return text
    }

    /// The bytes stored under `key`, or `nil` when there is no such item.
    public func getData(_ key: String) throws(Error) -> Data? {
        try bound { () throws(Error) -> Data? in
            var query = searchQuery(key)
            query[kSecReturnData as String] = true
            var item: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &item)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess else { throw Error(status: status) }
            guard let data = item as? Data else { throw .conversionFailed }
            return data
        }
    }

    /// The JSON-decoded value stored under `key`, or `nil` when there is no such item.
    /// - Throws: ``Error/conversionFailed`` when the stored bytes do not decode as `type`.
    public func get<T: Decodable>(_ key: String, as type: T.Type) throws(Error) -> T? {
        guard let data = try getData(key) else { return nil }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw .conversionFailed
        }
    }

    /// Whether an item exists under `key` (no secret is read).
    public func contains(_ key: String) throws(Error) -> Bool {
        try bound { () throws(Error) -> Bool in
            let status = SecItemCopyMatching(searchQuery(key) as CFDictionary, nil)
            if status == errSecItemNotFound { return false }
            guard status == errSecSuccess else { throw Error(status: status) }
            return true
        }
    }

    /// Every key (account) of this keychain's items, oldest first.
    public func allKeys() throws(Error) -> [String] {
        try bound { () throws(Error) -> [String] in
            var query = searchQuery(nil)
            query[kSecReturnAttributes as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitAll
            var items: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &items)
            if status == errSecItemNotFound { return [] }
            guard status == errSecSuccess else { throw Error(status: status) }
            return ((items as? [[String: Any]]) ?? []).compactMap { attributes in
                let account = attributes[kSecAttrAccount as String]
                return account as? String ?? (account as? Data).flatMap { String(data: $0, encoding: .utf8) }
            }
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
            var add = baseQuery.merging(writtenAttributes) { $1 }
            add[kSecAttrAccount as String] = key
            add[kSecAttrSynchronizable as String] = synchronizable
            add[kSecValueData as String] = value
            for _ in 0..<2 {
                let status = SecItemAdd(add as CFDictionary, nil)
                guard status == errSecDuplicateItem else {
                    guard status == errSecSuccess else { throw Error(status: status) }
                    return
                }
                var query = baseQuery
                query[kSecAttrAccount as String] = key
                query[kSecAttrSynchronizable as String] = synchronizable
                var change = writtenAttributes
                change[kSecValueData as String] = value
                let updated = SecItemUpdate(query as CFDictionary, change as CFDictionary)
                // Deleted between the two calls: add again.
                guard updated == errSecItemNotFound else {
                    guard updated == errSecSuccess else { throw Error(status: updated) }
                    return
                }
            }
            throw .duplicateItem
        }
    }

    /// Stores `value` JSON-encoded under `key`.
    /// - Throws: ``Error/conversionFailed`` when `value` does not encode.
    public func set(_ value: some Encodable, key: String) throws(Error) {
        let data: Data
        do {
            data = try JSONEncoder().encode(value)
        } catch {
            throw .conversionFailed
        }
        try set(data, key: key)
    }

    // MARK: - Removing

    /// Removes the item under `key` (synchronizable or not); nothing there is not an error.
    public func remove(_ key: String) throws(Error) { try delete(searchQuery(key)) }

    /// Removes every item of this keychain; none is not an error.
    public func removeAll() throws(Error) { try delete(searchQuery(nil)) }

    private func delete(_ query: [String: Any]) throws(Error) {
        try bound { () throws(Error) in
            let status = SecItemDelete(query as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else { throw Error(status: status) }
        }
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

// SPDX-License-Identifier: Apache-2.0
// The dictionaries `Keychain` passes to the SecItem calls and how it reads their answers, shared by the
// synchronous and the async API so the two cannot drift apart.

import Foundation

extension Keychain {
    // MARK: - Dictionaries

    /// The search for `key`'s bytes.
    func dataQuery(_ key: String) -> [String: Any] {
        var query = searchQuery(key)
        query[kSecReturnData as String] = true
        return query
    }

    /// The search for every item's attributes.
    var keysQuery: [String: Any] {
        var query = searchQuery(nil)
        query[kSecReturnAttributes as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitAll
        return query
    }

    /// The item `set` adds.
    func newItem(_ value: Data, key: String) -> [String: Any] {
        var add = baseQuery.merging(writtenAttributes) { $1 }
        add[kSecAttrAccount as String] = key
        add[kSecAttrSynchronizable as String] = synchronizable
        add[kSecValueData as String] = value
        return add
    }

    /// The item `set` updates when adding found it there.
    func existingItem(_ key: String) -> [String: Any] {
        var query = baseQuery
        query[kSecAttrAccount as String] = key
        query[kSecAttrSynchronizable as String] = synchronizable
        return query
    }

    /// What `set` changes in an existing item.
    func change(to value: Data) -> [String: Any] {
        var change = writtenAttributes
        change[kSecValueData as String] = value
        return change
    }

    // MARK: - Answers

    /// The bytes a search found; `nil` for no item.
    static func data(_ status: OSStatus, _ item: CFTypeRef?) throws(Error) -> Data? {
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess else { throw Error(status: status) }
        guard let data = item as? Data else { throw .conversionFailed }
        return data
    }

    static func text(_ data: Data?) throws(Error) -> String? {
        guard let data else { return nil }
        guard let text = String(data: data, encoding: .utf8) else { throw .conversionFailed }
        return text
    }

    static func decode<T: Decodable>(_ data: Data?, as type: T.Type) throws(Error) -> T? {
        guard let data else { return nil }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw .conversionFailed
        }
    }

    static func encode(_ value: some Encodable) throws(Error) -> Data {
        do {
            return try JSONEncoder().encode(value)
        } catch {
            throw .conversionFailed
        }
    }

    static func exists(_ status: OSStatus) throws(Error) -> Bool {
        if status == errSecItemNotFound { return false }
        guard status == errSecSuccess else { throw Error(status: status) }
        return true
    }

    /// The accounts of the items a search for attributes found, as text.
    static func keys(_ status: OSStatus, _ items: CFTypeRef?) throws(Error) -> [String] {
        if status == errSecItemNotFound { return [] }
        guard status == errSecSuccess else { throw Error(status: status) }
        return ((items as? [[String: Any]]) ?? []).compactMap { attributes in
            let account = attributes[kSecAttrAccount as String]
            return account as? String ?? (account as? Data).flatMap { String(data: $0, encoding: .utf8) }
        }
    }

    /// Whether `set`'s add stored the value; `false` means the item exists and must be updated instead.
    static func added(_ status: OSStatus) throws(Error) -> Bool {
        if status == errSecDuplicateItem { return false }
        guard status == errSecSuccess else { throw Error(status: status) }
        return true
    }

    /// Whether `set`'s update stored the value; `false` means the item was deleted meanwhile: add again.
    static func updated(_ status: OSStatus) throws(Error) -> Bool {
        if status == errSecItemNotFound { return false }
        guard status == errSecSuccess else { throw Error(status: status) }
        return true
    }

    /// A delete's status; nothing to delete is not an error.
    static func deleted(_ status: OSStatus) throws(Error) {
        guard status == errSecSuccess || status == errSecItemNotFound else { throw Error(status: status) }
    }
}

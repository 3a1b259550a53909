// SPDX-License-Identifier: Apache-2.0
// The security(1) password verbs' access to items: the Keychain library's SecItem functions, across access groups.

import Foundation
import CofferKeychain
import SecretServiceClient

/// A password item as SecItemCopyMatching returned it (attributes by their four-letter keys, and the data).
struct PasswordItem {
    var attributes: [String: Any]
    var data: Data?

    var itemClass: String { attributes[kSecClass as String] as? String ?? "" }
}

/// Adds, finds and deletes generic and internet passwords through the SecItem API.
///
/// security(1) on macOS sees every item in a keychain whatever application wrote it, while the Keychain library
/// confines a query to access groups (by default the executable's name). So before searching, the store asks
/// the provider which groups hold password items and searches all of them; new items go to `COFFER_ACCESS_GROUP`
/// or `--access-group` (default `coffer`).
struct PasswordItemStore {
    /// The group new items are written to.
    let accessGroup: String

    init(accessGroup: String?) {
        let environment = ProcessInfo.processInfo.environment["COFFER_ACCESS_GROUP"]
        self.accessGroup = accessGroup ?? (environment.flatMap { $0.isEmpty ? nil : $0 } ?? "coffer")
    }

    /// Adds an item; with `update`, an existing item with the same primary key gets the new data and attributes.
    /// - Throws: ``KeychainStatusError`` (`errSecDuplicateItem` without `update`, …).
    func add(_ itemClass: CFString, attributes: [String: Any], primaryKey: [String: Any], data: Data, update: Bool)
        async throws {
        let configuration = KeychainConfiguration(accessGroup: accessGroup)
        let start = Date()
        var query = attributes
        query[kSecClass as String] = itemClass
        query[kSecValueData as String] = data
        let status = KeychainConfiguration.withConfiguration(configuration) { SecItemAdd(query as CFDictionary, nil) }
        if status == errSecDuplicateItem, update {
            var match = primaryKey
            match[kSecClass as String] = itemClass
            match[kSecAttrAccessGroup as String] = accessGroup
            var changes = attributes
            changes[kSecValueData as String] = data
            try await KeychainStatusError.check(KeychainConfiguration.withConfiguration(configuration) {
                SecItemUpdate(match as CFDictionary, changes as CFDictionary)
            }, "SecKeychainItemModifyContent", since: start)
            return
        }
        // The Keychain library says only "not available" for a missing bus or provider; ask the client which, so this
        // verb reports it in the same words as every other.
        if status == errSecNotAvailable { try await ProviderConnection.requireProvider() }
        try await KeychainStatusError.check(status, "SecKeychainItemCreateFromContent", since: start)
    }

    /// Finds matching items in every access group.
    /// - Parameters:
    ///   - itemClass: `kSecClassGenericPassword` or `kSecClassInternetPassword`.
    ///   - attributes: the attributes to match.
    ///   - all: every match instead of the first.
    ///   - withData: whether to read the secrets too (may prompt to unlock).
    ///   - includeForeign: whether, when no Keychain item matches, items other programs wrote are found too
    ///     (the library's `adoptsForeignItems`).
    /// - Returns: the matches, at least one.
    /// - Throws: ``KeychainStatusError`` (`errSecItemNotFound`, …).
    func find(_ itemClass: CFString, attributes: [String: Any], all: Bool, withData: Bool,
              includeForeign: Bool = false) async throws -> [PasswordItem] {
        let configuration = KeychainConfiguration(accessGroup: accessGroup, accessGroups: try await groups(itemClass),
                                                  adoptsForeignItems: includeForeign)
        var query = attributes
        query[kSecClass as String] = itemClass
        query[kSecReturnAttributes as String] = true
        query[kSecReturnData as String] = withData
        query[kSecMatchLimit as String] = all ? kSecMatchLimitAll : kSecMatchLimitOne
        var result: CFTypeRef?
        let start = Date()
        let status = KeychainConfiguration.withConfiguration(configuration) {
            SecItemCopyMatching(query as CFDictionary, &result)
        }
        try await KeychainStatusError.check(status, "SecKeychainSearchCopyNext", since: start)
        let dictionaries: [[String: Any]] = if all { result as? [[String: Any]] ?? [] } else {
            (result as? [String: Any]).map { [$0] } ?? []
        }
        return dictionaries.map { dictionary in
            var attributes = dictionary
            let data = attributes.removeValue(forKey: kSecValueData as String) as? Data
            return PasswordItem(attributes: attributes, data: data)
        }
    }

    /// Deletes the first matching item, as security(1) does (run it again to delete the next).
    /// - Returns: the deleted item's attributes.
    /// - Throws: ``KeychainStatusError`` (`errSecItemNotFound`, …).
    func deleteFirst(_ itemClass: CFString, attributes: [String: Any]) async throws -> PasswordItem {
        guard let item = try await find(itemClass, attributes: attributes, all: false, withData: false).first else {
            throw KeychainStatusError(status: errSecItemNotFound, operation: "SecKeychainSearchCopyNext")
        }
        // The item's own primary key (with its access group) selects exactly it.
        var match: [String: Any] = [kSecClass as String: itemClass]
        for key in Self.primaryKeys(itemClass) {
            if let value = item.attributes[key] { match[key] = value }
        }
        let configuration = KeychainConfiguration(accessGroup: accessGroup)
        let start = Date()
        try await KeychainStatusError.check(KeychainConfiguration.withConfiguration(configuration) {
            SecItemDelete(match as CFDictionary)
        }, "SecKeychainItemDelete", since: start)
        return item
    }

    /// The attributes that identify an item of the class (Apple's primary keys).
    static func primaryKeys(_ itemClass: CFString) -> [String] {
        let common = [kSecAttrAccessGroup, kSecAttrSynchronizable].map { $0 as String }
        if itemClass == kSecClassInternetPassword {
            return common + [kSecAttrAccount, kSecAttrServer, kSecAttrSecurityDomain, kSecAttrPath, kSecAttrPort,
                             kSecAttrProtocol, kSecAttrAuthenticationType].map { $0 as String }
        }
        return common + [kSecAttrAccount, kSecAttrService].map { $0 as String }
    }

    /// The access groups holding items of the class, plus the default group (so a fresh keychain still works).
    private func groups(_ itemClass: CFString) async throws -> [String] {
        try await ProviderConnection.with { service in
            let (unlocked, locked) = try await service.searchItems(["keychain:class": itemClass as String])
            var groups: Set<String> = [accessGroup]
            for item in unlocked + locked {
                if let group = try? await service.itemProperties(item).attributes["keychain:agrp"] { groups.insert(group) }
            }
            return groups.sorted()
        }
    }
}

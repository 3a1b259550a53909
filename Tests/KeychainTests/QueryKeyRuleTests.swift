// SPDX-License-Identifier: Apache-2.0
// Which keys each SecItem call accepts, ignores or refuses, key by key, as Apple's securityd decides
// (SecItemServer.c, SecDbQuery.c): data and return keys are parsed in any query and never matched.

import Foundation
import Security
import SecretServiceTestSupport
import Testing

extension KeychainSuites {
    @Suite("Query keys per call, as Apple's securityd accepts and refuses them")
    struct QueryKeyRuleTests {
        /// The dictionary a row's key goes into.
        enum Call: String, CaseIterable, Sendable {
            case add, search, updateQuery, updateAttributes, delete
        }

        /// One key in one call, and the status Apple answers.
        struct Rule: Sendable, CustomTestStringConvertible {
            let key: String
            let value: @Sendable () -> Any
            let call: Call
            let expected: OSStatus
            var testDescription: String { "\(key) in \(call.rawValue) → \(expected)" }
        }

        static let service = "rules"
        static var base: [String: Any] {
            [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
             kSecAttrAccount as String: "alice"]
        }

        static let rules: [Rule] = {
            let data: @Sendable () -> Any = { Data("not the stored secret".utf8) }
            let yes: @Sendable () -> Any = { true }
            var rules: [Rule] = []
            // kSecValueData: the secret of an add or an update, parsed and ignored in every query.
            for call in Call.allCases { rules.append(Rule(key: kSecValueData as String, value: data, call: call, expected: errSecSuccess)) }
            for key in [kSecReturnData, kSecReturnAttributes, kSecReturnRef, kSecReturnPersistentRef] as [CFString] {
                rules.append(Rule(key: key as String, value: yes, call: .add, expected: errSecSuccess))
                rules.append(Rule(key: key as String, value: yes, call: .search, expected: errSecSuccess))
                rules.append(Rule(key: key as String, value: yes, call: .delete, expected: errSecSuccess))
                // errSecReturn…Unsupported in an update's query; in the attributes to update it is no attribute.
                rules.append(Rule(key: key as String, value: yes, call: .updateQuery, expected: errSecParam))
                rules.append(Rule(key: key as String, value: yes, call: .updateAttributes, expected: errSecParam))
            }
            let all: @Sendable () -> Any = { kSecMatchLimitAll }
            let one: @Sendable () -> Any = { kSecMatchLimitOne }
            rules += [
                Rule(key: kSecMatchLimit as String, value: all, call: .search, expected: errSecSuccess),
                Rule(key: kSecMatchLimit as String, value: all, call: .updateQuery, expected: errSecSuccess),
                Rule(key: kSecMatchLimit as String, value: all, call: .delete, expected: errSecSuccess),
                Rule(key: kSecMatchLimit as String, value: one, call: .delete, expected: errSecParam),
                Rule(key: kSecMatchLimit as String, value: { 2 }, call: .delete, expected: errSecParam),
                Rule(key: kSecMatchLimit as String, value: all, call: .add, expected: errSecParam),
                Rule(key: kSecMatchLimit as String, value: all, call: .updateAttributes, expected: errSecParam),
                Rule(key: kSecMatchCaseInsensitive as String, value: yes, call: .search, expected: errSecSuccess),
                Rule(key: kSecMatchCaseInsensitive as String, value: yes, call: .delete, expected: errSecParam),
                Rule(key: kSecUseAuthenticationUI as String, value: { kSecUseAuthenticationUISkip }, call: .search,
                     expected: errSecSuccess),
                Rule(key: kSecUseAuthenticationUI as String, value: { kSecUseAuthenticationUISkip }, call: .delete,
                     expected: errSecParam),
                Rule(key: kSecUseAuthenticationUI as String, value: { kSecUseAuthenticationUISkip }, call: .updateQuery,
                     expected: errSecParam),
                Rule(key: kSecUseAuthenticationUI as String, value: { kSecUseAuthenticationUIFail }, call: .delete,
                     expected: errSecSuccess),
            ]
            return rules
        }()

        /// Puts the one item back, runs `rule`'s call with its key added and returns the status.
        static func run(_ rule: Rule) -> OSStatus {
            SecItemDelete([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
                          as CFDictionary)
            var item = base
            item[kSecValueData as String] = Data("stored".utf8)
            guard SecItemAdd(item as CFDictionary, nil) == errSecSuccess else { return errSecInternalError }
            let extra = [rule.key: rule.value()]
            var result: CFTypeRef?
            switch rule.call {
            case .add:
                // A second item, so the add itself can succeed.
                var other = base.merging(extra) { $1 }
                other[kSecAttrAccount as String] = "bob"
                return SecItemAdd(other as CFDictionary, &result)
            case .search:
                return SecItemCopyMatching(base.merging(extra) { $1 } as CFDictionary, &result)
            case .updateQuery:
                return SecItemUpdate(base.merging(extra) { $1 } as CFDictionary,
                                     [kSecAttrComment as String: "changed"] as CFDictionary)
            case .updateAttributes:
                return SecItemUpdate(base as CFDictionary,
                                     extra.merging([kSecAttrComment as String: "changed"]) { old, _ in old } as CFDictionary)
            case .delete:
                return SecItemDelete(base.merging(extra) { $1 } as CFDictionary)
            }
        }

        @Test("each key in each call answers Apple's status")
        func rulesPerKeyAndCall() async throws {
            try await withKeychain { _, _, _ in
                for rule in Self.rules {
                    #expect(Self.run(rule) == rule.expected, "\(rule.testDescription)")
                }
            }
        }

        @Test("accepted data and return keys change nothing about which items match")
        func ignoredKeysDoNotMatch() async throws {
            try await withKeychain { _, _, _ in
                #expect(addGenericPassword(service: Self.service, account: "alice", password: "stored") == errSecSuccess)
                let wrongData = Self.base.merging([kSecValueData as String: Data("other".utf8)]) { $1 }
                var found: CFTypeRef?
                let search = wrongData.merging([kSecReturnData as String: true]) { $1 }
                #expect(SecItemCopyMatching(search as CFDictionary, &found) == errSecSuccess)
                #expect(found as? Data == Data("stored".utf8))
                // The update's query carries data too; the new data comes from the attributes to update only.
                #expect(SecItemUpdate(wrongData as CFDictionary, [kSecAttrComment as String: "c"] as CFDictionary)
                        == errSecSuccess)
                #expect(readGenericPassword(service: Self.service, account: "alice") == (errSecSuccess, "stored"))
                let deletion = wrongData.merging([kSecReturnAttributes as String: true]) { $1 }
                #expect(SecItemDelete(deletion as CFDictionary) == errSecSuccess)
                #expect(readGenericPassword(service: Self.service, account: "alice").0 == errSecItemNotFound)
            }
        }

        @Test("the most-copied save: one query with kSecValueData, SecItemDelete(query) then SecItemAdd(query, nil)")
        func deleteThenAddWithOneQuery() async throws {
            try await withKeychain { _, _, _ in
                func save(_ password: String) -> (OSStatus, OSStatus) {
                    let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                                kSecAttrAccount as String: "alice",
                                                kSecValueData as String: password.data(using: .utf8)!]
                    return (SecItemDelete(query as CFDictionary), SecItemAdd(query as CFDictionary, nil))
                }
                #expect(save("first") == (errSecItemNotFound, errSecSuccess))
                #expect(save("second") == (errSecSuccess, errSecSuccess))
                var item: CFTypeRef?
                let read: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                           kSecAttrAccount as String: "alice", kSecReturnData as String: true,
                                           kSecMatchLimit as String: kSecMatchLimitAll]
                #expect(SecItemCopyMatching(read as CFDictionary, &item) == errSecSuccess)
                #expect((item as? [Data]) == [Data("second".utf8)])
            }
        }

        @Test("a delete names its item by persistent reference or by attributes, not both")
        func persistentReferenceInDelete() async throws {
            try await withKeychain { _, _, _ in
                #expect(addGenericPassword(service: Self.service, account: "alice", password: "p") == errSecSuccess)
                var reference: CFTypeRef?
                let lookup = Self.base.merging([kSecReturnPersistentRef as String: true]) { $1 }
                #expect(SecItemCopyMatching(lookup as CFDictionary, &reference) == errSecSuccess)
                let persistent = try #require(reference as? Data)
                let both = Self.base.merging([kSecValuePersistentRef as String: persistent]) { $1 }
                #expect(SecItemDelete(both as CFDictionary) == errSecParam)
                #expect(SecItemDelete([kSecValuePersistentRef as String: persistent] as CFDictionary) == errSecSuccess)
                #expect(readGenericPassword(service: Self.service, account: "alice").0 == errSecItemNotFound)
            }
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Generic passwords end to end: add, read, update, delete, duplicates, not-found and every result shape.

import Foundation
import CofferKeychain
import SecretServiceTestSupport
import Testing

extension KeychainSuites {
    @Suite("Generic passwords against every provider")
    struct GenericPasswordTests {
        @Test("add, get, update and delete", arguments: Provider.allCases)
        func lifecycle(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                #expect(addGenericPassword(service: "svc", account: "alice", password: "one") == errSecSuccess)
                #expect(readGenericPassword(service: "svc", account: "alice") == (errSecSuccess, "one"))

                let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                            kSecAttrService as String: "svc", kSecAttrAccount as String: "alice"]
                let change: [String: Any] = [kSecValueData as String: Data("two".utf8),
                                             kSecAttrComment as String: "rotated"]
                #expect(SecItemUpdate(query as CFDictionary, change as CFDictionary) == errSecSuccess)
                #expect(readGenericPassword(service: "svc", account: "alice") == (errSecSuccess, "two"))

                var attributes: CFTypeRef?
                var lookup = query
                lookup[kSecReturnAttributes as String] = true
                #expect(SecItemCopyMatching(lookup as CFDictionary, &attributes) == errSecSuccess)
                let dictionary = try #require(attributes as? [String: Any])
                #expect(dictionary[kSecAttrComment as String] as? String == "rotated")
                #expect(dictionary[kSecAttrAccessGroup as String] as? String == testGroup)
                #expect(dictionary[kSecClass as String] as? String == kSecClassGenericPassword as String)
                #expect(dictionary[kSecAttrLabel as String] as? String == "svc")

                #expect(SecItemDelete(query as CFDictionary) == errSecSuccess)
                #expect(readGenericPassword(service: "svc", account: "alice").0 == errSecItemNotFound)
                #expect(SecItemDelete(query as CFDictionary) == errSecItemNotFound)
            }
        }

        @Test("a second item with the same primary key is errSecDuplicateItem; non-PK attributes do not matter", arguments: Provider.allCases)
        func duplicate(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                #expect(addGenericPassword(service: "dup", account: "a", password: "1") == errSecSuccess)
                #expect(addGenericPassword(service: "dup", account: "a", password: "2",
                                           extra: [kSecAttrLabel as String: "other"]) == errSecDuplicateItem)
                #expect(addGenericPassword(service: "dup", account: "b", password: "3") == errSecSuccess)
                // Another access group is another primary key.
                #expect(addGenericPassword(service: "dup", account: "a", password: "4",
                                           extra: [kSecAttrAccessGroup as String: "elsewhere"]) == errSecSuccess)
                #expect(readGenericPassword(service: "dup", account: "a") == (errSecSuccess, "1"))
            }
        }

        @Test("no match is errSecItemNotFound for limit one and limit all, never an empty array", arguments: Provider.allCases)
        func notFound(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                for limit in [kSecMatchLimitOne, kSecMatchLimitAll] {
                    var item: CFTypeRef?
                    let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                                kSecAttrService as String: "absent", kSecMatchLimit as String: limit,
                                                kSecReturnAttributes as String: true]
                    #expect(SecItemCopyMatching(query as CFDictionary, &item) == errSecItemNotFound)
                    #expect(item == nil)
                }
            }
        }

        @Test("result shapes follow the return keys and the limit", arguments: Provider.allCases)
        func resultShapes(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                #expect(addGenericPassword(service: "shape", account: "x", password: "secret") == errSecSuccess)
                let base: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                           kSecAttrService as String: "shape"]
                func copy(_ extra: [String: Any]) -> CFTypeRef? {
                    var item: CFTypeRef?
                    let status = SecItemCopyMatching(base.merging(extra) { $1 } as CFDictionary, &item)
                    #expect(status == errSecSuccess)
                    return item
                }
                #expect(copy([:]) == nil)  // existence check
                #expect(copy([kSecReturnData as String: true]) as? Data == Data("secret".utf8))
                let attributes = try #require(copy([kSecReturnAttributes as String: true]) as? [String: Any])
                #expect(attributes[kSecAttrAccount as String] as? String == "x")
                #expect(attributes[kSecValueData as String] == nil)
                let reference = try #require(copy([kSecReturnPersistentRef as String: true]) as? Data)
                #expect(String(decoding: reference, as: UTF8.self).hasPrefix("kcref1:"))
                let both = try #require(copy([kSecReturnData as String: true, kSecReturnAttributes as String: true,
                                              kSecReturnPersistentRef as String: true]) as? [String: Any])
                #expect(both[kSecValueData as String] as? Data == Data("secret".utf8))
                #expect(both[kSecValuePersistentRef as String] as? Data == reference)
                #expect(both[kSecAttrService as String] as? String == "shape")
                let list = try #require(copy([kSecReturnData as String: true,
                                              kSecMatchLimit as String: kSecMatchLimitAll]) as? [Data])
                #expect(list == [Data("secret".utf8)])
                let dictionaries = try #require(copy([kSecReturnAttributes as String: true,
                                                      kSecMatchLimit as String: 5]) as? [[String: Any]])
                #expect(dictionaries.count == 1)
            }
        }

        @Test("Data accounts and binary secrets round-trip with their types", arguments: Provider.allCases)
        func binaryValues(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                let secret = Data([0, 1, 2, 255])
                let account = Data([0xde, 0xad, 0xbe, 0xef])
                let add: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "bin",
                                          kSecAttrAccount as String: account, kSecValueData as String: secret,
                                          kSecAttrGeneric as String: Data("g".utf8)]
                #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
                var item: CFTypeRef?
                let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account,
                                            kSecReturnData as String: true, kSecReturnAttributes as String: true]
                #expect(SecItemCopyMatching(query as CFDictionary, &item) == errSecSuccess)
                let result = try #require(item as? [String: Any])
                #expect(result[kSecValueData as String] as? Data == secret)
                #expect(result[kSecAttrAccount as String] as? Data == account)
                #expect(result[kSecAttrGeneric as String] as? Data == Data("g".utf8))
            }
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// iOS keychain semantics over cofferd: update and delete all matches, synchronizable, access groups, references.

import Foundation
import CofferKeychain
import SecretServiceTestSupport
import Testing

extension KeychainSuites {
    @Suite("Keychain semantics against every provider")
    struct KeychainBehaviourTests {
        static let genp = kSecClassGenericPassword as String

        @Test("update and delete act on every match", arguments: Provider.allCases)
        func updateAndDeleteAll(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                for account in ["a", "b", "c"] {
                    #expect(addGenericPassword(service: "many", account: account, password: "old") == errSecSuccess)
                }
                #expect(addGenericPassword(service: "other", account: "a", password: "keep") == errSecSuccess)
                let many: [String: Any] = [kSecClass as String: Self.genp, kSecAttrService as String: "many"]
                let change: [String: Any] = [kSecValueData as String: Data("new".utf8)]
                #expect(SecItemUpdate(many as CFDictionary, change as CFDictionary) == errSecSuccess)
                for account in ["a", "b", "c"] {
                    #expect(readGenericPassword(service: "many", account: account) == (errSecSuccess, "new"))
                }
                // Moving all three to one account would give them one primary key: refused, nothing written.
                #expect(SecItemUpdate(many as CFDictionary, [kSecAttrAccount as String: "z"] as CFDictionary)
                        == errSecDuplicateItem)
                #expect(readGenericPassword(service: "many", account: "z").0 == errSecItemNotFound)
                // Taking the primary key of an item outside the set is refused too.
                let one: [String: Any] = [kSecClass as String: Self.genp, kSecAttrService as String: "other"]
                #expect(SecItemUpdate(one as CFDictionary, [kSecAttrService as String: "many"] as CFDictionary)
                        == errSecDuplicateItem)

                #expect(SecItemDelete(many as CFDictionary) == errSecSuccess)
                #expect(readGenericPassword(service: "many", account: "b").0 == errSecItemNotFound)
                #expect(readGenericPassword(service: "other", account: "a") == (errSecSuccess, "keep"))
                let none: [String: Any] = [kSecClass as String: Self.genp, kSecAttrService as String: "nothing"]
                #expect(SecItemUpdate(none as CFDictionary, change as CFDictionary) == errSecItemNotFound)
            }
        }

        @Test("synchronizable absent/false, true and Any select the right items", arguments: Provider.allCases)
        func synchronizable(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                #expect(addGenericPassword(service: "sync", account: "a", password: "local") == errSecSuccess)
                #expect(addGenericPassword(service: "sync", account: "a", password: "cloud",
                                           extra: [kSecAttrSynchronizable as String: true]) == errSecSuccess)
                #expect(readGenericPassword(service: "sync", account: "a") == (errSecSuccess, "local"))
                #expect(readGenericPassword(service: "sync", account: "a",
                                            extra: [kSecAttrSynchronizable as String: false]) == (errSecSuccess, "local"))
                #expect(readGenericPassword(service: "sync", account: "a",
                                            extra: [kSecAttrSynchronizable as String: kCFBooleanTrue!])
                        == (errSecSuccess, "cloud"))
                var items: CFTypeRef?
                let any: [String: Any] = [kSecClass as String: Self.genp, kSecAttrService as String: "sync",
                                          kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
                                          kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnData as String: true]
                #expect(SecItemCopyMatching(any as CFDictionary, &items) == errSecSuccess)
                #expect(Set((items as? [Data]) ?? []) == [Data("local".utf8), Data("cloud".utf8)])
                let deleteAny: [String: Any] = [kSecClass as String: Self.genp, kSecAttrService as String: "sync",
                                                kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]
                #expect(SecItemDelete(deleteAny as CFDictionary) == errSecSuccess)
                #expect(readGenericPassword(service: "sync", account: "a").0 == errSecItemNotFound)
            }
        }

        @Test("access groups are namespaces: queries see the caller's groups unless they name another", arguments: Provider.allCases)
        func accessGroups(provider: Provider) async throws {
            try await withKeychain(provider) { bus, _, _ in
                #expect(addGenericPassword(service: "grp", account: "a", password: "mine") == errSecSuccess)
                #expect(addGenericPassword(service: "grp", account: "a", password: "shared",
                                           extra: [kSecAttrAccessGroup as String: "shared.group"]) == errSecSuccess)
                #expect(readGenericPassword(service: "grp", account: "a") == (errSecSuccess, "mine"))
                #expect(readGenericPassword(service: "grp", account: "a",
                                            extra: [kSecAttrAccessGroup as String: "shared.group"])
                        == (errSecSuccess, "shared"))
                let other = KeychainConfiguration(busAddress: bus.address, accessGroup: "another.app",
                                                  lockDirectory: bus.directory.path)
                KeychainConfiguration.withConfiguration(other) {
                    #expect(readGenericPassword(service: "grp", account: "a").0 == errSecItemNotFound)
                }
                let both = KeychainConfiguration(busAddress: bus.address, accessGroup: testGroup,
                                                 accessGroups: [testGroup, "shared.group"],
                                                 lockDirectory: bus.directory.path)
                KeychainConfiguration.withConfiguration(both) {
                    var items: CFTypeRef?
                    let all: [String: Any] = [kSecClass as String: Self.genp, kSecAttrService as String: "grp",
                                              kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnData as String: true]
                    #expect(SecItemCopyMatching(all as CFDictionary, &items) == errSecSuccess)
                    #expect((items as? [Data])?.count == 2)
                }
            }
        }

        @Test("a persistent reference finds, updates and deletes its item without kSecClass", arguments: Provider.allCases)
        func persistentReference(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                var added: CFTypeRef?
                let add: [String: Any] = [kSecClass as String: Self.genp, kSecAttrService as String: "ref",
                                          kSecAttrAccount as String: "a", kSecValueData as String: Data("v1".utf8),
                                          kSecReturnPersistentRef as String: true]
                #expect(SecItemAdd(add as CFDictionary, &added) == errSecSuccess)
                let reference = try #require(added as? Data)
                var item: CFTypeRef?
                let byReference: [String: Any] = [kSecValuePersistentRef as String: reference,
                                                  kSecReturnData as String: true]
                #expect(SecItemCopyMatching(byReference as CFDictionary, &item) == errSecSuccess)
                #expect(item as? Data == Data("v1".utf8))
                let target: [String: Any] = [kSecValuePersistentRef as String: reference]
                #expect(SecItemUpdate(target as CFDictionary, [kSecValueData as String: Data("v2".utf8)] as CFDictionary)
                        == errSecSuccess)
                #expect(readGenericPassword(service: "ref", account: "a") == (errSecSuccess, "v2"))
                #expect(SecItemDelete(target as CFDictionary) == errSecSuccess)
                #expect(SecItemCopyMatching(byReference as CFDictionary, &item) == errSecItemNotFound)
            }
        }

        @Test("label and case-insensitive matches are client-side; non-PK attributes narrow searches, not adds",
              arguments: Provider.allCases)
        func searchRefinements(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                #expect(addGenericPassword(service: "Mail", account: "Alice", password: "1",
                                           extra: [kSecAttrLabel as String: "Work mail"]) == errSecSuccess)
                #expect(addGenericPassword(service: "Mail", account: "bob", password: "2") == errSecSuccess)
                #expect(readGenericPassword(service: "mail", account: "alice").0 == errSecItemNotFound)
                #expect(readGenericPassword(service: "mail", account: "alice",
                                            extra: [kSecMatchCaseInsensitive as String: true]) == (errSecSuccess, "1"))
                var item: CFTypeRef?
                let byLabel: [String: Any] = [kSecClass as String: Self.genp, kSecAttrLabel as String: "Work mail",
                                              kSecReturnData as String: true]
                #expect(SecItemCopyMatching(byLabel as CFDictionary, &item) == errSecSuccess)
                #expect(item as? Data == Data("1".utf8))
                // The classic pitfall, reproduced: a search with a non-PK attribute misses, the add still collides.
                let generic = [kSecAttrGeneric as String: Data("extra".utf8)]
                #expect(readGenericPassword(service: "Mail", account: "bob", extra: generic).0 == errSecItemNotFound)
                #expect(addGenericPassword(service: "Mail", account: "bob", password: "3", extra: generic)
                        == errSecDuplicateItem)
                // A numeric limit returns an array of at most that many; the number 1 is kSecMatchLimitOne.
                let limited: [String: Any] = [kSecClass as String: Self.genp, kSecAttrService as String: "Mail",
                                              kSecMatchLimit as String: 2, kSecReturnData as String: true]
                #expect(SecItemCopyMatching(limited as CFDictionary, &item) == errSecSuccess)
                #expect(Set((item as? [Data]) ?? []) == [Data("1".utf8), Data("2".utf8)])
                let one = limited.merging([kSecMatchLimit as String: 1]) { $1 }
                #expect(SecItemCopyMatching(one as CFDictionary, &item) == errSecSuccess)
                #expect(item is Data)
            }
        }

        @Test("calls from many threads at once keep the primary key unique", arguments: Provider.allCases)
        func concurrentAdds(provider: Provider) async throws {
            try await withKeychain(provider) { bus, _, _ in
                let configuration = KeychainConfiguration.current
                let statuses = await withTaskGroup(of: OSStatus.self) { group in
                    for index in 0..<6 {
                        group.addTask {
                            KeychainConfiguration.withConfiguration(configuration) {
                                addGenericPassword(service: "race", account: "a", password: "\(index)")
                            }
                        }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
                #expect(statuses.filter { $0 == errSecSuccess }.count == 1)
                #expect(statuses.filter { $0 == errSecDuplicateItem }.count == 5)
                _ = bus
            }
        }
    }
}

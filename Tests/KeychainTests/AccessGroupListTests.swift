// SPDX-License-Identifier: Apache-2.0
// Listed access groups stand in for the keychain-access-groups entitlement: writes default to the first, searches
// and deletes without a group cover all of them, and an add to an unlisted group is refused, as on iOS.

import Foundation
import CofferKeychain
import SecretServiceTestSupport
import Testing

extension KeychainSuites {
    @Suite("Access groups listed for a program")
    struct AccessGroupListTests {
        static let shared = "TEAMID.com.example.shared"
        static let own = "TEAMID.com.example.app"

        /// Runs `body` with the listed groups in force and no explicit default group.
        static func withListedGroups(_ body: () throws -> Void) rethrows {
            var configuration = KeychainConfiguration.current
            configuration.accessGroup = nil
            configuration.accessGroups = [shared, own]
            try KeychainConfiguration.withConfiguration(configuration, operation: body)
        }

        static func group(ofAccount account: String) -> String? {
            var result: CFTypeRef?
            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                        kSecAttrAccount as String: account, kSecReturnAttributes as String: true]
            guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess else { return nil }
            return (result as? [String: Any])?[kSecAttrAccessGroup as String] as? String
        }

        @Test("writes go to the first group, searches and deletes without a group cover every listed one")
        func sharedGroupLikeIOS() async throws {
            try await withKeychain { _, _, _ in
                try Self.withListedGroups {
                    #expect(addGenericPassword(service: "svc", account: "first", password: "1") == errSecSuccess)
                    #expect(addGenericPassword(service: "svc", account: "second", password: "2",
                                               extra: [kSecAttrAccessGroup as String: Self.own]) == errSecSuccess)
                    #expect(Self.group(ofAccount: "first") == Self.shared)
                    #expect(Self.group(ofAccount: "second") == Self.own)
                    #expect(addGenericPassword(service: "svc", account: "third", password: "3",
                                               extra: [kSecAttrAccessGroup as String: "TEAMID.other"])
                            == errSecMissingEntitlement)

                    var result: CFTypeRef?
                    let all: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                              kSecAttrService as String: "svc", kSecReturnAttributes as String: true,
                                              kSecMatchLimit as String: kSecMatchLimitAll]
                    #expect(SecItemCopyMatching(all as CFDictionary, &result) == errSecSuccess)
                    let found = try #require(result as? [[String: Any]])
                    #expect(Set(found.compactMap { $0[kSecAttrAccount as String] as? String }) == ["first", "second"])

                    #expect(SecItemDelete([kSecClass as String: kSecClassGenericPassword,
                                           kSecAttrService as String: "svc"] as CFDictionary) == errSecSuccess)
                    #expect(SecItemCopyMatching(all as CFDictionary, &result) == errSecItemNotFound)
                }
            }
        }

        @Test("COFFER_KEYCHAIN_ACCESS_GROUPS is split at colons and commas, in order")
        func environmentList() {
            let environment = [KeychainConfiguration.accessGroupsVariable: "TEAMID.a:TEAMID.b, TEAMID.c,,:"]
            #expect(KeychainConfiguration.groups(in: environment) == ["TEAMID.a", "TEAMID.b", "TEAMID.c"])
            #expect(KeychainConfiguration.groups(in: [:]).isEmpty)
        }

        @Test("without a list, the default group alone is searched and any group may be written")
        func noList() async throws {
            try await withKeychain { _, _, _ in
                #expect(addGenericPassword(service: "svc", account: "elsewhere", password: "1",
                                           extra: [kSecAttrAccessGroup as String: "TEAMID.other"]) == errSecSuccess)
                #expect(readGenericPassword(service: "svc", account: "elsewhere").0 == errSecItemNotFound)
            }
        }
    }
}

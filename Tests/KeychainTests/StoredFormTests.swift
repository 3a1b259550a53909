// SPDX-License-Identifier: Apache-2.0
// What the provider holds after SecItem writes: markers, primary-key defaults, and complete maps after updates.

import DBusWire
import Foundation
import CofferKeychain
import SecretServiceClient
import SecretServiceTestSupport
import Testing

extension KeychainSuites {
    @Suite("Stored form on every provider")
    struct StoredFormTests {
        /// The attributes of the only item matching `attributes`, read with our own client.
        private func storedAttributes(_ client: SecretService, _ attributes: [String: String]) async throws
            -> ItemProperties {
            let found = try await client.searchItems(attributes)
            let paths = found.unlocked + found.locked
            try #require(paths.count == 1, "expected one item, found \(paths.count)")
            return try await client.itemProperties(paths[0])
        }

        @Test("a generic password carries the mapping's attributes, and an update rewrites the whole map",
              arguments: Provider.allCases)
        func genericPasswordMap(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, client in
                #expect(addGenericPassword(service: "com.example.app", account: "alice", password: "hunter2",
                                           extra: [kSecAttrSynchronizable as String: true,
                                                   kSecAttrComment as String: "first"]) == errSecSuccess)
                let added = try await storedAttributes(client, ["service": "com.example.app"])
                #expect(added.label == "com.example.app")
                #expect(added.attributes["xdg:schema"] == "org.freedesktop.Secret.Generic")
                #expect(added.attributes["keychain:class"] == "genp")
                #expect(added.attributes["keychain:v"] == "1")
                #expect(added.attributes["keychain:agrp"] == testGroup)
                #expect(added.attributes["keychain:pdmn"] == "ak")
                #expect(added.attributes["keychain:sync"] == "true")
                #expect(added.attributes["keychain:icmt"] == "first")
                #expect(added.attributes["account"] == "alice")
                #expect(added.attributes["username"] == "alice")

                // Turning synchronizable off must remove the marker: providers that replace attributes and those
                // that merge them end up with the same map only if the complete map is written.
                let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                            kSecAttrService as String: "com.example.app",
                                            kSecAttrSynchronizable as String: true]
                let change: [String: Any] = [kSecAttrSynchronizable as String: false,
                                             kSecAttrAccount as String: "bob", kSecAttrLabel as String: "renamed"]
                #expect(SecItemUpdate(query as CFDictionary, change as CFDictionary) == errSecSuccess)
                let updated = try await storedAttributes(client, ["service": "com.example.app"])
                #expect(updated.label == "renamed")
                #expect(updated.attributes["keychain:sync"] == nil)
                #expect(updated.attributes["keychain:icmt"] == "first")
                #expect(updated.attributes["account"] == "bob")
                #expect(updated.attributes["username"] == "bob")
                #expect(readGenericPassword(service: "com.example.app", account: "bob") == (errSecSuccess, "hunter2"))
            }
        }

        @Test("an internet password writes every primary-key attribute with libsecret's names",
              arguments: Provider.allCases)
        func internetPasswordMap(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, client in
                let add: [String: Any] = [kSecClass as String: kSecClassInternetPassword,
                                          kSecAttrServer as String: "git.example.org", kSecAttrAccount as String: "bob",
                                          kSecAttrProtocol as String: kSecAttrProtocolHTTPS,
                                          kSecAttrAuthenticationType as String: kSecAttrAuthenticationTypeDefault,
                                          kSecValueData as String: Data("tok".utf8)]
                #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
                let stored = try await storedAttributes(client, ["server": "git.example.org"])
                #expect(stored.label == "git.example.org")
                let expected = ["xdg:schema": "org.gnome.keyring.NetworkPassword", "keychain:class": "inet",
                                "user": "bob", "protocol": "https", "port": "0", "object": "", "domain": "",
                                "authtype": "default"]
                for (name, value) in expected { #expect(stored.attributes[name] == value, "\(name)") }
                // The same item again, with the defaults spelled out, is the same primary key.
                var same = add
                same[kSecAttrPort as String] = 0
                same[kSecAttrPath as String] = ""
                #expect(SecItemAdd(same as CFDictionary, nil) == errSecDuplicateItem)
            }
        }
    }
}

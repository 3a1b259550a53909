// SPDX-License-Identifier: Apache-2.0
// Items other programs wrote (secret-tool, python keyring) are found only with adoption on, and the next write
// through the library adopts them (mapping §6.9).

import Foundation
import CofferKeychain
import SecretServiceClient
import SecretServiceTestSupport
import Testing

extension KeychainSuites {
    @Suite("Adopting foreign items on every provider")
    struct ForeignItemTests {
        /// The bound configuration with adoption switched on.
        private var adopting: KeychainConfiguration {
            var configuration = KeychainConfiguration.current
            configuration.adoptsForeignItems = true
            return configuration
        }

        private func secretToolStore(_ environment: ClientEnvironment, _ attributes: [String], secret: String)
            async throws {
            let output = try await environment.secretTool(["store", "--label=foreign"] + attributes,
                                                          input: Data(secret.utf8))
            try #require(output.status == 0, "\(output.stderr)")
        }

        private func internetPassword(server: String) -> (OSStatus, String?) {
            let query: [String: Any] = [kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: server,
                                        kSecAttrAccount as String: "U", kSecAttrProtocol as String: kSecAttrProtocolHTTPS,
                                        kSecReturnData as String: true]
            var item: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &item)
            return (status, (item as? Data).map { String(decoding: $0, as: UTF8.self) })
        }

        @Test("secret-tool and python keyring items are found with adoption on, not with it off",
              arguments: Provider.allCases)
        func foundOnlyWhenAdopting(provider: Provider) async throws {
            try await withKeychain(provider) { bus, _, _ in
                let environment = ClientEnvironment(bus: bus)
                try await secretToolStore(environment, ["service", "S", "account", "A"], secret: "from secret-tool")
                try await secretToolStore(environment, ["server", "h.example.org", "user", "U", "protocol", "https"],
                                          secret: "network secret")
                let python = try await environment.python("""
                    import keyring
                    from keyring.backends import SecretService
                    keyring.set_keyring(SecretService.Keyring())
                    keyring.set_password("PS", "PU", "from python")
                    """)
                try #require(python.status == 0, "\(python.stderr)")

                #expect(readGenericPassword(service: "S", account: "A").0 == errSecItemNotFound)
                #expect(readGenericPassword(service: "PS", account: "PU").0 == errSecItemNotFound)
                #expect(internetPassword(server: "h.example.org").0 == errSecItemNotFound)

                KeychainConfiguration.withConfiguration(adopting) {
                    #expect(readGenericPassword(service: "S", account: "A") == (errSecSuccess, "from secret-tool"))
                    #expect(readGenericPassword(service: "PS", account: "PU") == (errSecSuccess, "from python"))
                    #expect(internetPassword(server: "h.example.org") == (errSecSuccess, "network secret"))
                    var item: CFTypeRef?
                    let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                                kSecAttrService as String: "PS", kSecReturnAttributes as String: true]
                    #expect(SecItemCopyMatching(query as CFDictionary, &item) == errSecSuccess)
                    let attributes = item as? [String: Any]
                    #expect(attributes?[kSecAttrAccount as String] as? String == "PU")
                    #expect(attributes?[kSecAttrAccessGroup as String] as? String == testGroup)
                    #expect(attributes?[kSecAttrSynchronizable as String] as? Bool == false)
                    // Adopted items belong to the default group only, and are never synchronizable.
                    #expect(readGenericPassword(service: "S", account: "A",
                                                extra: [kSecAttrAccessGroup as String: "other.group"]).0
                            == errSecItemNotFound)
                    #expect(readGenericPassword(service: "S", account: "A",
                                                extra: [kSecAttrSynchronizable as String: true]).0
                            == errSecItemNotFound)
                }
            }
        }

        @Test("the next write adopts a foreign item: markers added, never a second item", arguments: Provider.allCases)
        func writeAdopts(provider: Provider) async throws {
            try await withKeychain(provider) { bus, _, client in
                let environment = ClientEnvironment(bus: bus)
                try await secretToolStore(environment, ["service", "S2", "account", "A2"], secret: "old")
                let configuration = adopting
                let statusOfAdd = KeychainConfiguration.withConfiguration(configuration) {
                    addGenericPassword(service: "S2", account: "A2", password: "duplicate")
                }
                #expect(statusOfAdd == errSecDuplicateItem)
                try await Keychain(service: "S2").configuration(configuration).set("new", key: "A2")

                let found = try await client.searchItems(["service": "S2"])
                let paths = found.unlocked + found.locked
                try #require(paths.count == 1)
                let stored = try await client.itemProperties(paths[0]).attributes
                #expect(stored["keychain:class"] == "genp")
                #expect(stored["keychain:agrp"] == testGroup)
                #expect(stored["username"] == "A2")
                let lookup = try await environment.secretTool(["lookup", "service", "S2", "account", "A2"])
                #expect(lookup.text == "new")
                // Now it is the library's own item: found without adoption.
                #expect(readGenericPassword(service: "S2", account: "A2") == (errSecSuccess, "new"))
            }
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Items written through SecItem are found by secret-tool and python keyring; locked and missing providers.

import Foundation
import CofferKeychain
import SecretServiceClient
import SecretServiceTestSupport
import Testing

extension KeychainSuites {
    @Suite("Interoperability and provider states")
    struct InteropTests {
        @Test("secret-tool and python keyring find a generic password added with SecItemAdd", arguments: Provider.allCases)
        func genericPasswordInterop(provider: Provider) async throws {
            try await withKeychain(provider) { bus, _, _ in
                #expect(addGenericPassword(service: "S", account: "A", password: "from swift") == errSecSuccess)
                let environment = ClientEnvironment(bus: bus)
                let lookup = try await environment.secretTool(["lookup", "service", "S", "account", "A"])
                #expect(lookup.status == 0, "\(lookup.stderr)")
                #expect(lookup.text == "from swift")
                let python = try await environment.python("""
                    import keyring
                    from keyring.backends import SecretService
                    keyring.set_keyring(SecretService.Keyring())
                    print(keyring.get_password("S", "A"), end="")
                    """)
                #expect(python.status == 0, "\(python.stderr)")
                #expect(python.text == "from swift")
            }
        }

        @Test("secret-tool finds an internet password by server, user and protocol", arguments: Provider.allCases)
        func internetPasswordInterop(provider: Provider) async throws {
            try await withKeychain(provider) { bus, _, _ in
                let add: [String: Any] = [kSecClass as String: kSecClassInternetPassword,
                                          kSecAttrServer as String: "git.example.org", kSecAttrAccount as String: "U",
                                          kSecAttrProtocol as String: kSecAttrProtocolHTTPS,
                                          kSecValueData as String: Data("token".utf8)]
                #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
                let lookup = try await ClientEnvironment(bus: bus).secretTool(
                    ["lookup", "server", "git.example.org", "user", "U", "protocol", "https"])
                #expect(lookup.status == 0, "\(lookup.stderr)")
                #expect(lookup.text == "token")
            }
        }

        @Test("a locked collection without UI (UIFail, a no-interaction LAContext) is errSecInteractionNotAllowed; Skip skips", arguments: Provider.allCases)
        func lockedWithoutUI(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, client in
                #expect(addGenericPassword(service: "locked", account: "a", password: "p") == errSecSuccess)
                try await client.lock([try await client.defaultCollection()])
                let noUI = [kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail]
                #expect(readGenericPassword(service: "locked", account: "a", extra: noUI).0 == errSecInteractionNotAllowed)
                #expect(addGenericPassword(service: "locked", account: "b", password: "p", extra: noUI)
                        == errSecInteractionNotAllowed)
                // An LAContext that forbids interaction does the same, even next to kSecUseAuthenticationUIAllow.
                let context = LAContext()
                context.interactionNotAllowed = true
                #expect(readGenericPassword(service: "locked", account: "a",
                                            extra: [kSecUseAuthenticationContext as String: context,
                                                    kSecUseAuthenticationUI as String: kSecUseAuthenticationUIAllow]).0
                        == errSecInteractionNotAllowed)
                // Skip leaves locked items out of a search instead of failing.
                #expect(readGenericPassword(service: "locked", account: "a",
                                            extra: [kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip]).0
                        == errSecItemNotFound)
                #expect(SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword,
                                             kSecUseAuthenticationContext as String: "not a context"] as CFDictionary,
                                            nil) == errSecParam)
            }
        }

        @Test("a bus without a Secret Service provider is errSecNotAvailable")
        func noProvider() async throws {
            try await TestBus.withPrivateBus { bus in
                let configuration = KeychainConfiguration(busAddress: bus.address, lockDirectory: bus.directory.path)
                KeychainConfiguration.withConfiguration(configuration) {
                    #expect(addGenericPassword(service: "s", account: "a", password: "p") == errSecNotAvailable)
                    #expect(readGenericPassword(service: "s", account: "a").0 == errSecNotAvailable)
                }
                await KeychainLibrary.closeConnection(for: configuration)
            }
        }
    }
}

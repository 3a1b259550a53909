// SPDX-License-Identifier: Apache-2.0
// The Swift-style `Keychain` front: subscripts, throwing and async calls, options, typed errors, Codable values.

import Foundation
import CofferKeychain
import SecretServiceClient
import SecretServiceTestSupport
import Testing

extension KeychainSuites {
    @Suite("The Keychain wrapper against every provider")
    struct KeychainAccessorTests {
        struct Settings: Codable, Equatable, Sendable {
            var server: String
            var retries: Int
        }

        @Test("subscripts store, replace and remove; allKeys, contains and removeAll", arguments: Provider.allCases)
        func subscripts(provider: Provider) async throws {
            // In async code the async overloads win; the synchronous calls are exercised from synchronous code.
            func exercise() throws {
                let keychain = Keychain(service: "com.example.wrapper")
                #expect(keychain["token"] == nil)
                keychain["token"] = "first"
                #expect(keychain["token"] == "first")
                keychain["token"] = "second"  // replaces, never a second item
                #expect(keychain[string: "token"] == "second")
                keychain[data: "blob"] = Data([0, 1, 2])
                #expect(keychain[data: "blob"] == Data([0, 1, 2]))
                #expect(Set(try keychain.allKeys()) == ["token", "blob"])
                #expect(try keychain.contains("token"))
                keychain["token"] = nil
                #expect(try !keychain.contains("token"))
                #expect(readGenericPassword(service: "com.example.wrapper", account: "token").0 == errSecItemNotFound)
                // Other services are other keychains.
                Keychain(service: "com.example.other")["token"] = "elsewhere"
                try keychain.removeAll()
                #expect(try keychain.allKeys().isEmpty)
                try keychain.removeAll()  // nothing left is not an error
                #expect(Keychain(service: "com.example.other")["token"] == "elsewhere")
            }
            try await withKeychain(provider) { _, _, _ in try exercise() }
        }

        @Test("options reach the stored item; an internet keychain is found by secret-tool",
              arguments: Provider.allCases)
        func optionsAndInternetPasswords(provider: Provider) async throws {
            try await withKeychain(provider) { bus, _, _ in
                let keychain = Keychain(service: "opts").accessGroup("shared.group").synchronizable(true)
                    .accessibility(.afterFirstUnlock).label("Work account").comment("from the wrapper")
                try await keychain.set("v", key: "alice")
                var item: CFTypeRef?
                let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                            kSecAttrService as String: "opts", kSecAttrAccessGroup as String: "shared.group",
                                            kSecAttrSynchronizable as String: true, kSecReturnAttributes as String: true]
                #expect(SecItemCopyMatching(query as CFDictionary, &item) == errSecSuccess)
                let attributes = try #require(item as? [String: Any])
                #expect(attributes[kSecAttrLabel as String] as? String == "Work account")
                #expect(attributes[kSecAttrComment as String] as? String == "from the wrapper")
                #expect(attributes[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAfterFirstUnlock as String)
                #expect(attributes[kSecAttrAccount as String] as? String == "alice")
                // A keychain without the group does not see it.
                #expect(Keychain(service: "opts")["alice"] == nil)

                let web = Keychain(server: "https://git.example.org", protocolType: .https)
                web["bob"] = "tok"
                #expect(web["bob"] == "tok")
                let lookup = try await ClientEnvironment(bus: bus).secretTool(
                    ["lookup", "server", "git.example.org", "user", "bob", "protocol", "https"])
                #expect(lookup.text == "tok", "\(lookup.stderr)")
                #expect(Keychain(server: "git.example.org", protocolType: .http)["bob"] == nil)
            }
        }

        @Test("typed errors carry the status; Codable values round-trip", arguments: Provider.allCases)
        func errorsAndCodable(provider: Provider) async throws {
            let keychain = Keychain(service: "typed")
            let settings = Settings(server: "imap.example.org", retries: 3)
            func unlockedChecks() throws {
                try keychain.set(settings, key: "settings")
                #expect(try keychain.get("settings", as: Settings.self) == settings)
                #expect(try keychain.get("absent", as: Settings.self) == nil)
                #expect(throws: Keychain.Error.conversionFailed) { try keychain.get("settings", as: [Int].self) }
                try keychain.set(Data([0xff, 0xfe]), key: "binary")
                #expect(throws: Keychain.Error.conversionFailed) { try keychain.getString("binary") }
                #expect(throws: Keychain.Error.unimplemented) {
                    try keychain.accessibility(.whenPasscodeSetThisDeviceOnly).set("x", key: "passcode")
                }
            }
            func lockedChecks() {
                let error = #expect(throws: Keychain.Error.self) {
                    try keychain.allowsInteraction(false).getString("settings")
                }
                #expect(error == .interactionNotAllowed)
                #expect(error?.status == errSecInteractionNotAllowed)
            }
            try await withKeychain(provider) { _, _, client in
                try unlockedChecks()
                try await client.lock([try await client.defaultCollection()])
                lockedChecks()
            }
            #expect(Keychain.Error(status: errSecDuplicateItem) == .duplicateItem)
            #expect(Keychain.Error(status: -1).status == -1)
            #expect(Keychain.Error.itemNotFound.description == "The specified item could not be found in the keychain.")
        }

        @Test("async variants from many tasks at once, with the task's configuration", arguments: Provider.allCases)
        func asyncVariants(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                let keychain = Keychain(service: "async")
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<12 {
                        group.addTask {
                            try await keychain.set("value \(index)", key: "key\(index)")
                            #expect(try await keychain.get("key\(index)") == "value \(index)")
                        }
                    }
                    try await group.waitForAll()
                }
                #expect(try await keychain.allKeys().count == 12)
                try await keychain.set(Settings(server: "s", retries: 1), key: "codable")
                #expect(try await keychain.get("codable", as: Settings.self) == Settings(server: "s", retries: 1))
                #expect(try await keychain.getData("key0") == Data("value 0".utf8))
                #expect(try await keychain.contains("key1"))
                try await keychain.remove("key1")
                #expect(try await !keychain.contains("key1"))
                try await keychain.removeAll()
                #expect(try await keychain.allKeys().isEmpty)
            }
        }
    }
}

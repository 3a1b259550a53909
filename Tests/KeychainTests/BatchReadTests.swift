// SPDX-License-Identifier: Apache-2.0
// SecItemCopyMatching reads its candidates' properties in one io.coffer.Items call against cofferd, and falls back
// to one GetAll per candidate against a provider without it (gnome-keyring), asking only once per connection.

import DBusTransport
import DBusWire
import Foundation
import CofferKeychain
@testable import Security
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

extension KeychainSuites {
    @Suite("Batch reads")
    struct BatchReadTests {
        static let count = 30

        @Test("a search of 30 items: one GetItemProperties on cofferd; one probe, then a GetAll each elsewhere",
              arguments: Provider.allCases)
        func oneCallOrFallback(provider: Provider) async throws {
            try await withKeychain(provider) { bus, _, client in
                for index in 0..<Self.count {
                    #expect(addGenericPassword(service: "batch", account: "a\(index)", password: "p\(index)")
                        == errSecSuccess)
                }
                let search: @Sendable () async throws -> Void = {
                    let query: [String: Any] = [
                        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "batch",
                        kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true,
                        kSecReturnData as String: true,
                    ]
                    var result: CFTypeRef?
                    #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
                    let items = result as? [[String: Any]] ?? []
                    let accounts = items.compactMap { $0[kSecAttrAccount as String] as? String }
                    let secrets = items.compactMap { $0[kSecValueData as String] as? Data }
                    #expect(Set(accounts) == Set((0..<Self.count).map { "a\($0)" }))
                    #expect(Set(secrets) == Set((0..<Self.count).map { Data("p\($0)".utf8) }))
                }
                let configuration = KeychainConfiguration.current
                let bound: @Sendable () async throws -> Void = {
                    try await KeychainConfiguration.withConfiguration(configuration) { try await search() }
                }
                let first = try await calls(on: bus, marker: client.connection, during: bound)
                let second = try await calls(on: bus, marker: client.connection, during: bound)
                let shared = try #require(ProviderRegistry.shared.readyClient(for: configuration.busKey))
                for counts in [first, second] {
                    #expect(counts["GetSecrets"] == 1, "\(counts)")
                    #expect(counts["SearchItems"] == 1, "\(counts)")
                }
                switch provider {
                case .cofferd:
                    #expect(shared.readsItemPropertiesInOneCall == true)
                    for counts in [first, second] {
                        #expect(counts["GetItemProperties"] == 1, "\(counts)")
                        #expect(counts["GetAll"] == nil, "\(counts)")
                    }
                case .gnomeKeyring:
                    #expect(shared.readsItemPropertiesInOneCall == false)
                    // Asked on the first search of the connection, never again.
                    #expect(first["GetItemProperties"] == 1, "\(first)")
                    #expect(second["GetItemProperties"] == nil, "\(second)")
                    for counts in [first, second] {
                        #expect(counts["GetAll"] == Self.count, "\(counts)")
                    }
                }
            }
        }

        @Test("a fresh connection asks the provider once, and a provider without the call still answers every search",
              arguments: Provider.allCases)
        func probeOncePerConnection(provider: Provider) async throws {
            try await withKeychain(provider) { bus, _, client in
                for index in 0..<3 {
                    #expect(addGenericPassword(service: "probe", account: "a\(index)", password: "p") == errSecSuccess)
                }
                let configuration = KeychainConfiguration.current
                await KeychainLibrary.closeConnection(for: configuration)
                let counts = try await calls(on: bus, marker: client.connection) {
                    KeychainConfiguration.withConfiguration(configuration) {
                        for _ in 0..<3 {
                            let query: [String: Any] = [
                                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "probe",
                                kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true,
                            ]
                            var result: CFTypeRef?
                            #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
                            #expect((result as? [[String: Any]])?.count == 3)
                        }
                    }
                }
                #expect(counts["GetItemProperties"] == (provider == .cofferd ? 3 : 1), "\(counts)")
                #expect(counts["GetAll"] == (provider == .cofferd ? nil : 9), "\(counts)")
            }
        }
    }
}

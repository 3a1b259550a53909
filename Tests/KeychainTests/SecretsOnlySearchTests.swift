// SPDX-License-Identifier: Apache-2.0
// A search that returns only data or persistent references reads no properties on cofferd: SearchOldestFirst, then
// one GetSecrets; it answers what the usual way answers, and leaves to the usual way what only it can decide.

import DBusTransport
import DBusWire
import Foundation
import CofferKeychain
import Security
import SecretServiceClient
import SecretServiceTestSupport
import Testing

/// The results of `query`, as data texts or persistent references, plus the status.
private func copyAll(_ query: [String: Any]) -> (OSStatus, [Data]) {
    var result: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    if let one = result as? Data { return (status, [one]) }
    if let many = result as? [Data] { return (status, many) }
    // With attributes too: each entry a dictionary holding the data.
    let entries = (result as? [[String: Any]]) ?? (result as? [String: Any]).map { [$0] } ?? []
    return (status, entries.compactMap { $0[kSecValueData as String] as? Data })
}

private func texts(_ data: [Data]) -> [String] { data.map { String(decoding: $0, as: UTF8.self) } }

extension KeychainSuites {
    @Suite("Searches for secrets alone")
    struct SecretsOnlySearchTests {
        static func query(_ service: String, _ extra: [String: Any] = [:]) -> [String: Any] {
            [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
             kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnData as String: true].merging(extra) { $1 }
        }

        @Test("data of every match: one SearchOldestFirst and one GetSecrets, no properties, in creation order")
        func noProperties() async throws {
            try await withKeychain { bus, _, client in
                for index in 0..<12 {
                    #expect(addGenericPassword(service: "short", account: "a\(index)", password: "p\(index)")
                        == errSecSuccess)
                }
                let configuration = KeychainConfiguration.current
                let calls = try await methodCalls(on: bus, marker: client.connection) {
                    KeychainConfiguration.withConfiguration(configuration) {
                        #expect(texts(copyAll(Self.query("short")).1) == (0..<12).map { "p\($0)" })
                    }
                }
                let provider = calls.filter { $0.destination?.rawValue != "org.freedesktop.DBus" }
                #expect(provider.compactMap(\.member?.rawValue) == ["SearchOldestFirst", "GetSecrets"])

                // Nothing found: not found at once, without the usual way's search after it.
                let none = try await methodCalls(on: bus, marker: client.connection) {
                    KeychainConfiguration.withConfiguration(configuration) {
                        #expect(copyAll(Self.query("short", [kSecAttrAccount as String: "absent"])).0
                                == errSecItemNotFound)
                    }
                }
                #expect(none.filter { $0.destination?.rawValue != "org.freedesktop.DBus" }
                    .compactMap(\.member?.rawValue) == ["SearchOldestFirst"])
            }
        }

        @Test("the short way answers as the usual way does: limits, persistent references, other services")
        func sameAnswers() async throws {
            try await withKeychain { _, _, _ in
                for (account, password) in [("x", "1"), ("y", "2"), ("z", "3")] {
                    #expect(addGenericPassword(service: "same", account: account, password: password) == errSecSuccess)
                }
                #expect(addGenericPassword(service: "elsewhere", account: "x", password: "4") == errSecSuccess)
                // kSecReturnAttributes takes the usual way: its data, in its order, is the reference answer.
                let withAttributes = [kSecReturnAttributes as String: true]
                for extra in [[:], [kSecAttrAccount as String: "y"], [kSecMatchLimit as String: kSecMatchLimitOne],
                              [kSecMatchLimit as String: 2]] as [[String: Any]] {
                    let short = copyAll(Self.query("same", extra))
                    let usual = copyAll(Self.query("same", extra.merging(withAttributes) { $1 }))
                    #expect(short.0 == errSecSuccess && usual.0 == errSecSuccess)
                    #expect(short.1 == usual.1, "\(extra)")
                }
                #expect(copyAll(Self.query("nowhere")).0 == errSecItemNotFound)

                // Persistent references alone: each finds its item's data again.
                var references: CFTypeRef?
                let byReference = Self.query("same", [kSecReturnData as String: false,
                                                      kSecReturnPersistentRef as String: true])
                #expect(SecItemCopyMatching(byReference as CFDictionary, &references) == errSecSuccess)
                let found = (references as? [Data] ?? []).map { reference in
                    texts(copyAll([kSecClass as String: kSecClassGenericPassword,
                                   kSecValuePersistentRef as String: reference, kSecReturnData as String: true]).1)
                }
                #expect(found == [["1"], ["2"], ["3"]])
            }
        }

        @Test("secrets larger together than the secure-memory pool: every one comes back, with or without attributes")
        func beyondThePool() async throws {
            try await withKeychain { _, _, _ in
                // 48 secrets of 24 KiB are 1.1 MiB, more than the 1 MiB pool of cofferd and of this process; each
                // is held in it only from its decryption until it is copied into the result.
                let passwords = (0..<48).map { String(repeating: "\($0 % 10)", count: 24 * 1024) }
                for (index, password) in passwords.enumerated() {
                    #expect(addGenericPassword(service: "large", account: "a\(index)", password: password)
                        == errSecSuccess)
                }
                let (status, data) = copyAll(Self.query("large"))
                #expect(status == errSecSuccess)
                #expect(texts(data) == passwords)
                let (withAttributes, dictionaries) = copyAll(Self.query("large", [kSecReturnAttributes as String: true]))
                #expect(withAttributes == errSecSuccess)
                #expect(texts(dictionaries) == passwords)
            }
        }

        @Test("text that base64 could have written takes the usual way: it never matches bytes stored as base64")
        func base64LookalikeText() async throws {
            try await withKeychain { bus, _, client in
                // Not UTF-8, so stored as base64: the attribute's text is "//79".
                let bytes = Data([0xFF, 0xFE, 0xFD])
                let add: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                          kSecAttrService as String: "blobs", kSecAttrAccount as String: bytes,
                                          kSecValueData as String: Data("stored".utf8)]
                #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
                let configuration = KeychainConfiguration.current
                let calls = try await methodCalls(on: bus, marker: client.connection) {
                    KeychainConfiguration.withConfiguration(configuration) {
                        #expect(copyAll(Self.query("blobs", [kSecAttrAccount as String: "//79"])).0
                                == errSecItemNotFound)
                        #expect(texts(copyAll(Self.query("blobs", [kSecAttrAccount as String: bytes])).1)
                                == ["stored"])
                    }
                }
                #expect(!calls.contains { $0.member?.rawValue == "SearchOldestFirst" })
            }
        }

        @Test("another provider: the usual way, after one refused SearchOldestFirst on the connection")
        func otherProvider() async throws {
            try await withKeychain(.gnomeKeyring) { bus, _, client in
                #expect(addGenericPassword(service: "gk", account: "a", password: "first") == errSecSuccess)
                #expect(addGenericPassword(service: "gk", account: "b", password: "second") == errSecSuccess)
                let configuration = KeychainConfiguration.current
                let calls = try await methodCalls(on: bus, marker: client.connection) {
                    KeychainConfiguration.withConfiguration(configuration) {
                        #expect(texts(copyAll(Self.query("gk")).1) == ["first", "second"])
                        #expect(texts(copyAll(Self.query("gk")).1) == ["first", "second"])
                    }
                }
                #expect(calls.filter { $0.member?.rawValue == "SearchOldestFirst" }.count == 1)
                #expect(calls.filter { $0.member?.rawValue == "SearchItems" }.count == 2)
            }
        }
    }
}

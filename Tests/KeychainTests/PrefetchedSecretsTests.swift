// SPDX-License-Identifier: Apache-2.0
// A search that returns data asks for its candidates' secrets together with their properties, one round trip less;
// but never for a secret the search alone cannot tell the query wants (another group, a label, the limit).

import DBusTransport
import DBusWire
import Foundation
import CofferKeychain
import Security
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

/// Owns `org.freedesktop.secrets` with a plain session and one generic password of service `held`; answers its
/// properties only once the secrets of it have been asked for, so a client that waits for the properties first
/// never gets either.
private struct PropertiesAfterSecretsProvider {
    static let path: ObjectPath = "/org/freedesktop/secrets/collection/c/1"
    let server: Task<Void, Never>

    static func start(on bus: TestBus) async throws -> PropertiesAfterSecretsProvider {
        let connection = try await StandInService.claimSecretService(on: bus)
        let server = StandInService.run(on: connection) {
            var heldProperties: Message?
            var secretsAsked = false
            for await call in connection.messages where call.kind == .methodCall {
                switch call.member?.rawValue {
                case "OpenSession":
                    _ = try? await connection.send(StandInService.openSessionReply(to: call))
                case "SearchItems":
                    _ = try? await connection.send(call.makeReply([.objectPaths([path]), .objectPaths([])]))
                case "GetAll":
                    heldProperties = call
                case "GetSecrets":
                    secretsAsked = true
                    let secret = WireSecret(session: "/org/freedesktop/secrets/session/1", parameters: [],
                                            value: Array("held-secret".utf8), contentType: "text/plain")
                    _ = try? await connection.send(call.makeReply([
                        .dictionary(key: .objectPath, value: WireSecret.type,
                                    [DictEntry(.objectPath(path), secret.dbusValue)]),
                    ]))
                default:
                    _ = try? await connection.send(call.makeErrorReply(DBusError(.unknownMethod, "not scripted")))
                }
                if secretsAsked, let held = heldProperties {
                    _ = try? await connection.send(held.makeReply([properties]))
                    heldProperties = nil
                }
            }
        }
        return PropertiesAfterSecretsProvider(server: server)
    }

    /// What the library writes for a generic password of service `held`, account `one`.
    private static let properties = DBusValue.variantDictionary([
        "Label": .string("held"), "Created": .uint64(1), "Modified": .uint64(1), "Locked": .boolean(false),
        "Attributes": .stringDictionary([
            "xdg:schema": "org.freedesktop.Secret.Generic", "keychain:class": "genp", "keychain:v": "1",
            "keychain:agrp": testGroup, "keychain:pdmn": "ak", "service": "held", "account": "one",
        ]),
    ])
}

/// The paths of every `GetSecrets` among `calls`, one list per call.
private func secretsAsked(in calls: [Message]) -> [[String]] {
    calls.filter { $0.member?.rawValue == "GetSecrets" }.map { call in
        (call.body.first?.arrayElements ?? []).compactMap { $0.objectPath?.rawValue }
    }
}

/// The data of every item of service `service` that `extra` also matches, in the order returned.
private func secrets(service: String, _ extra: [String: Any] = [:]) -> [String] {
    var query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
        kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnData as String: true,
    ]
    query.merge(extra) { $1 }
    var result: CFTypeRef?
    guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess else { return [] }
    if let one = result as? Data { return [String(decoding: one, as: UTF8.self)] }
    return (result as? [Data] ?? []).map { String(decoding: $0, as: UTF8.self) }
}

extension KeychainSuites {
    @Suite("Prefetched secrets")
    struct PrefetchedSecretsTests {
        @Test("a search for data asks for the secrets before the properties have come back", .timeLimit(.minutes(1)))
        func secretsAskedWithProperties() async throws {
            try await TestBus.withPrivateBus { bus in
                let provider = try await PropertiesAfterSecretsProvider.start(on: bus)
                let configuration = KeychainConfiguration(busAddress: bus.address, accessGroup: testGroup,
                                                          allowsPlainSession: true, lockDirectory: bus.directory.path)
                let found = try await withDeadline(.seconds(20), waitingFor: "the search's replies") {
                    KeychainConfiguration.withConfiguration(configuration) {
                        secrets(service: "held", [kSecAttrAccount as String: "one",
                                                  kSecMatchLimit as String: kSecMatchLimitOne])
                    }
                }
                #expect(found == ["held-secret"])
                await KeychainLibrary.closeConnection(for: configuration)
                provider.server.cancel()
            }
        }

        @Test("every candidate of an exact search: one GetSecrets naming all of them, and the right data")
        func exactSearchNamesCandidates() async throws {
            try await withKeychain { bus, _, client in
                for index in 0..<3 {
                    #expect(addGenericPassword(service: "exact", account: "a\(index)", password: "p\(index)")
                        == errSecSuccess)
                }
                let configuration = KeychainConfiguration.current
                let calls = try await methodCalls(on: bus, marker: client.connection) {
                    KeychainConfiguration.withConfiguration(configuration) {
                        #expect(secrets(service: "exact") == ["p0", "p1", "p2"])
                    }
                }
                #expect(secretsAsked(in: calls).map(\.count) == [3])
            }
        }

        @Test("a label the search cannot hold: only the matching item's secret is asked for")
        func labelLeavesOthersUnread() async throws {
            try await withKeychain { bus, _, client in
                #expect(addGenericPassword(service: "labelled", account: "a", password: "wanted",
                                           extra: [kSecAttrLabel as String: "wanted"]) == errSecSuccess)
                #expect(addGenericPassword(service: "labelled", account: "b", password: "other",
                                           extra: [kSecAttrLabel as String: "other"]) == errSecSuccess)
                let configuration = KeychainConfiguration.current
                let calls = try await methodCalls(on: bus, marker: client.connection) {
                    KeychainConfiguration.withConfiguration(configuration) {
                        #expect(secrets(service: "labelled", [kSecAttrLabel as String: "wanted"]) == ["wanted"])
                    }
                }
                #expect(secretsAsked(in: calls).map(\.count) == [1])
            }
        }

        @Test("a limit of one over two candidates: only the first item's secret is asked for")
        func limitLeavesOthersUnread() async throws {
            try await withKeychain { bus, _, client in
                #expect(addGenericPassword(service: "limited", account: "a", password: "first") == errSecSuccess)
                #expect(addGenericPassword(service: "limited", account: "b", password: "second") == errSecSuccess)
                let configuration = KeychainConfiguration.current
                let calls = try await methodCalls(on: bus, marker: client.connection) {
                    KeychainConfiguration.withConfiguration(configuration) {
                        #expect(secrets(service: "limited", [kSecMatchLimit as String: kSecMatchLimitOne])
                            == ["first"])
                    }
                }
                #expect(secretsAsked(in: calls).map(\.count) == [1])
            }
        }

        @Test("a program with two access groups: another group's item of the same service is never read")
        func otherGroupLeftUnread() async throws {
            try await withKeychain(accessGroup: "io.coffer.tests.one",
                                   accessGroups: ["io.coffer.tests.one", "io.coffer.tests.two"]) { bus, _, client in
                let mine = KeychainConfiguration.current
                var theirs = mine
                theirs.accessGroup = "io.coffer.tests.three"
                theirs.accessGroups = ["io.coffer.tests.three"]
                #expect(addGenericPassword(service: "grouped", account: "a", password: "mine") == errSecSuccess)
                KeychainConfiguration.withConfiguration(theirs) {
                    #expect(addGenericPassword(service: "grouped", account: "b", password: "theirs") == errSecSuccess)
                }
                let calls = try await methodCalls(on: bus, marker: client.connection) {
                    KeychainConfiguration.withConfiguration(mine) {
                        #expect(secrets(service: "grouped") == ["mine"])
                    }
                }
                #expect(secretsAsked(in: calls).map(\.count) == [1])
            }
        }
    }
}

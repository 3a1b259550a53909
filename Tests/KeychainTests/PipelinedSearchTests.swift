// SPDX-License-Identifier: Apache-2.0
// SecItemCopyMatching reads its candidates' properties with every GetAll in flight at once, shown against a stand-in
// provider that answers none of them until all have arrived.

import DBusTransport
import DBusWire
import Foundation
import CofferKeychain
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

/// Owns `org.freedesktop.secrets`; offers only a plain session; finds `count` generic passwords of service `held`;
/// and holds every `GetAll` reply until all `count` calls are waiting.
private struct HeldPropertiesProvider {
    let server: Task<Void, Never>

    static func start(on bus: TestBus, count: Int) async throws -> HeldPropertiesProvider {
        let connection = try await StandInService.claimSecretService(on: bus)
        let paths = (0..<count).map { ObjectPath("/org/freedesktop/secrets/collection/c/\($0)")! }
        let server = StandInService.run(on: connection) {
            var held: [Message] = []
            for await call in connection.messages where call.kind == .methodCall {
                switch call.member?.rawValue {
                case "OpenSession":
                    _ = try? await connection.send(StandInService.openSessionReply(to: call))
                case "SearchItems":
                    _ = try? await connection.send(call.makeReply([.objectPaths(paths), .objectPaths([])]))
                case "GetAll":
                    held.append(call)
                    guard held.count == count else { continue }
                    for call in held { _ = try? await connection.send(call.makeReply([properties(of: call)])) }
                    held.removeAll()
                default:
                    _ = try? await connection.send(call.makeErrorReply(DBusError(.unknownMethod, "not scripted")))
                }
            }
        }
        return HeldPropertiesProvider(server: server)
    }

    /// What the library writes for a generic password of service `held`, account the item's number.
    private static func properties(of call: Message) -> DBusValue {
        let account = call.path?.rawValue.split(separator: "/").last.map(String.init) ?? ""
        return .variantDictionary([
            "Label": .string("held"), "Created": .uint64(1), "Modified": .uint64(1), "Locked": .boolean(false),
            "Attributes": .stringDictionary([
                "xdg:schema": "org.freedesktop.Secret.Generic", "keychain:class": "genp", "keychain:v": "1",
                "keychain:agrp": testGroup, "keychain:pdmn": "ak", "service": "held", "account": account,
            ]),
        ])
    }
}

extension KeychainSuites {
    @Suite("Pipelined search")
    struct PipelinedSearchTests {
        @Test("SecItemCopyMatching asks for the properties of all 40 candidates before awaiting one",
              .timeLimit(.minutes(1)))
        func candidatesInFlightTogether() async throws {
            try await TestBus.withPrivateBus { bus in
                let provider = try await HeldPropertiesProvider.start(on: bus, count: 40)
                let configuration = KeychainConfiguration(busAddress: bus.address, accessGroup: testGroup,
                                                          allowsPlainSession: true, lockDirectory: bus.directory.path)
                let (status, accounts) = try await withDeadline(.seconds(20), waitingFor: "the search's replies") {
                    KeychainConfiguration.withConfiguration(configuration) { () -> (OSStatus, [String]) in
                        let query: [String: Any] = [
                            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "held",
                            kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true,
                        ]
                        var result: CFTypeRef?
                        let status = SecItemCopyMatching(query as CFDictionary, &result)
                        let items = result as? [[String: Any]] ?? []
                        return (status, items.compactMap { $0[kSecAttrAccount as String] as? String })
                    }
                }
                #expect(status == errSecSuccess)
                #expect(Set(accounts) == Set((0..<40).map(String.init)))
                await KeychainLibrary.closeConnection(for: configuration)
                provider.server.cancel()
            }
        }
    }
}

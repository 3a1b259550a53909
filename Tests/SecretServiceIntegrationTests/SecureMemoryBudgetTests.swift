// SPDX-License-Identifier: Apache-2.0
// Thousands of DH sessions against cofferd: those past the secure-memory budget are refused, unlocking still works.

import DBusTransport
import DBusWire
import SecretCrypto
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

@Suite("Secure memory budget", .timeLimit(.minutes(3)))
struct SecureMemoryBudgetTests {
    static let login: ObjectPath = "/org/freedesktop/secrets/collection/login"
    /// Connections and DH sessions each: 2,000 in all, each connection under its own cap (docs/DAEMON.md, "Limits").
    static let connections = 8
    static let sessionsEach = 250

    /// Opens `count` DH sessions on a connection of its own, one after another; returns how many were opened and
    /// how many refused with `LimitsExceeded`, and the connection, whose sessions live as long as it is open. Any
    /// other answer fails the test.
    static func openSessions(_ count: Int, on address: String, publicKey: [UInt8]) async throws
        -> (opened: Int, refused: Int, connection: Connection) {
        let connection = try await Connection.connect(address: address)
        let service = ServiceProxy(connection: connection)
        var (opened, refused) = (0, 0)
        for _ in 0..<count {
            do {
                _ = try await service.openSession(algorithm: SecretServiceNames.dhAlgorithm, input: .bytes(publicKey))
                opened += 1
            } catch SecretServiceError.limitsExceeded {
                refused += 1
            }
        }
        return (opened, refused, connection)
    }

    /// Calls `member` of gnome-keyring's internal interface with `password` encoded in the client's DH session.
    static func masterPasswordCall(_ client: SecretService, _ member: MemberName, _ password: String) async throws {
        let master = try client.session.encode(secret(password), contentType: "text/plain").dbusValue
        _ = try await client.connection.call(.methodCall(
            destination: SecretServiceNames.busName, path: SecretServiceNames.servicePath,
            interface: SecretServiceNames.gnomeInternalInterface, member: member,
            body: [.objectPath(login), master])).body
    }

    @Test("2,000 DH sessions: those past the budget get LimitsExceeded; the right password still unlocks and reads")
    func sessionsPastTheBudget() async throws {
        try await withCofferd { env, daemon in
            let bus = env.bus
            let honest = try await SecretService.connect(address: bus.address)
            // Read back after the flood: its plaintext, padded and unpadded, needs room in the pool.
            let value = String(repeating: "budget ", count: 4096)
            let item = try await honest.createItem(in: Self.login, label: "kept", attributes: ["budget": "1"],
                                                   secret: secret(value), replace: false)
            _ = try await honest.lock([Self.login])
            let publicKey = try DHKeyPair().publicKey
            let address = bus.address
            let results = try await withThrowingTaskGroup(of: (opened: Int, refused: Int, connection: Connection).self) {
                group in
                for _ in 0..<Self.connections {
                    group.addTask { try await Self.openSessions(Self.sessionsEach, on: address, publicKey: publicKey) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let opened = results.map(\.opened).reduce(0, +)
            let refused = results.map(\.refused).reduce(0, +)
            #expect(opened > 100 && refused > 0 && opened + refused == Self.connections * Self.sessionsEach,
                    "opened \(opened), refused \(refused)")

            // The reserve serves the key derivation and the unwrapping: a wrong password is still wrong, the
            // right one unlocks.
            let wrong = await #expect(throws: DBusError.self) {
                try await Self.masterPasswordCall(honest, "UnlockWithMasterPassword", "not the password")
            }
            #expect(wrong?.name == SecretErrorNames.denied)
            try await Self.masterPasswordCall(honest, "UnlockWithMasterPassword", DaemonHarness.testLoginPassword)
            #expect(try await honest.collectionProperties(Self.login).locked == false)
            #expect(try await honest.secret(of: item).text == value)
            for result in results { await result.connection.close() }
            await honest.close()
        }
    }
}

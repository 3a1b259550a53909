// SPDX-License-Identifier: Apache-2.0
// Transfer sessions: algorithms, ownership by connection, closing, and secrets bound to their session.

import DBusTransport
import DBusWire
import SecretCrypto
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

@Suite("Client against cofferd: sessions", .timeLimit(.minutes(2)))
struct SessionTests {
    @Test("an unknown algorithm is NotSupported")
    func unknownAlgorithm() async throws {
        try await DaemonHarness.withDaemon { _, _, client in
            let error = await #expect(throws: SecretServiceError.self) {
                _ = try await client.service.openSession(algorithm: "rot13", input: .string(""))
            }
            #expect(errorName(error) == .notSupported)
        }
    }

    @Test("a session belongs to its connection and dies with it")
    func sessionDiesWithItsConnection() async throws {
        try await DaemonHarness.withDaemon { bus, _, client in
            let item = try await client.createItem(
                in: try await client.defaultCollection(), label: "owned", attributes: ["owner": "test"],
                secret: secret("mine"), replace: false)

            let other = try await SecretService.connect(address: bus.address)
            let foreignSession = other.session.path
            #expect(foreignSession != client.session.path)
            #expect(try await other.secret(of: item).text == "mine")

            // Another connection may not use it, even while it lives.
            let borrowed = await #expect(throws: SecretServiceError.self) {
                _ = try await client.itemProxy(item).getSecret(session: foreignSession)
            }
            #expect(errorName(borrowed) == SecretErrorNames.noSession)

            // The owner leaves the bus without closing the session: watch it go, then the session is gone too.
            let departures = try await client.subscribe(to: [.nameOwnerChanged(other.connection.uniqueName)])
            await other.connection.close()
            _ = try await nextSignal(departures, "the other connection leaving the bus") {
                $0.body.count == 3 && $0.body[2].string == ""
            }
            await departures.cancel()
            let gone = await #expect(throws: SecretServiceError.self) {
                _ = try await client.itemProxy(item).getSecret(session: foreignSession)
            }
            #expect(errorName(gone) == SecretErrorNames.noSession)
            #expect(try await client.secret(of: item).text == "mine")
        }
    }

    @Test("Session.Close ends a session; further use is NoSession")
    func closeSession() async throws {
        try await DaemonHarness.withDaemon { _, _, client in
            let item = try await client.createItem(
                in: try await client.defaultCollection(), label: "c", attributes: ["close": "1"], secret: secret("v"),
                replace: false)
            let extra = try await client.openSession(preferring: .dh)
            #expect(extra.algorithm == .dh)
            let wire = try await client.itemProxy(item).getSecret(session: extra.path)
            #expect(wire.session == extra.path)
            #expect(wire.parameters.count == 16)
            #expect(try extra.decode(wire).copyBytes() == Array("v".utf8))
            // A secret encoded for one session is rejected by another.
            #expect(throws: SecretServiceClientError.self) { _ = try client.session.decode(wire) }

            try await SessionProxy(connection: client.connection, path: extra.path).close()
            let error = await #expect(throws: SecretServiceError.self) {
                _ = try await client.itemProxy(item).getSecret(session: extra.path)
            }
            #expect(errorName(error) == SecretErrorNames.noSession)
        }
    }

    @Test("DH secrets use a fresh IV each time and an empty secret is one block")
    func freshIVs() async throws {
        try await DaemonHarness.withDaemon { _, _, client in
            let item = try await client.createItem(
                in: try await client.defaultCollection(), label: "iv", attributes: ["iv": "1"],
                secret: try SecretBytes(copying: []), replace: false)
            let first = try await client.itemProxy(item).getSecret(session: client.session.path)
            let second = try await client.itemProxy(item).getSecret(session: client.session.path)
            #expect(first.parameters != second.parameters)
            #expect(first.value.count == 16)
            #expect(try client.session.decode(first).isEmpty)
        }
    }
}

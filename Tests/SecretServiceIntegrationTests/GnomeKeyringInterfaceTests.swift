// SPDX-License-Identifier: Apache-2.0
// gnome-keyring's private interface against the real cofferd: a changed login password survives a restart.

import DBusTransport
import DBusWire
import SecretCrypto
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

@Suite("gnome-keyring internal interface against cofferd", .timeLimit(.minutes(2)))
struct GnomeKeyringInterfaceTests {
    static let login: ObjectPath = "/org/freedesktop/secrets/collection/login"
    /// Cheap Argon2id for the passwords set while the test runs (the test measures behaviour, not cost).
    static let cheapKeyDerivation = ["--kdf-iterations", "1", "--kdf-memory", "256"]

    /// Calls `member` of gnome-keyring's internal interface on the service object, as Seahorse does.
    func callInternal(_ client: SecretService, _ member: MemberName, _ body: [DBusValue]) async throws -> [DBusValue] {
        let call = Message.methodCall(destination: SecretServiceNames.busName, path: SecretServiceNames.servicePath,
                                      interface: SecretServiceNames.gnomeInternalInterface, member: member, body: body)
        return try await client.connection.call(call).body
    }

    /// `text` as a `Secret` struct of the client's own (DH) session.
    func master(_ client: SecretService, _ text: String) throws -> DBusValue {
        try client.session.encode(secret(text), contentType: "text/plain").dbusValue
    }

    @Test("ChangeWithMasterPassword re-keys login: a restart unlocks it with the new password and items survive")
    func changeLoginPasswordAcrossRestart() async throws {
        let newPassword = "a new login password"
        try await TestBus.withPrivateBus { bus in
            let first = try await DaemonHarness.start(.subprocess, on: bus, arguments: Self.cheapKeyDerivation)
            let item: ObjectPath
            do {
                let client = try await SecretService.connect(address: bus.address)
                item = try await client.createItem(in: Self.login, label: "kept", attributes: ["gk": "change"],
                                                   secret: secret("survives the restart"), replace: false)
                let wrong = await #expect(throws: DBusError.self) {
                    try await callInternal(client, "ChangeWithMasterPassword", [
                        .objectPath(Self.login), try master(client, "not the password"), try master(client, "x"),
                    ])
                }
                #expect(wrong?.name == SecretErrorNames.denied)
                let body = try await callInternal(client, "ChangeWithMasterPassword", [
                    .objectPath(Self.login), try master(client, DaemonHarness.testLoginPassword),
                    try master(client, newPassword),
                ])
                #expect(body.isEmpty)
                await client.close()
            } catch {
                await first.kill()
                throw error
            }
            let stopped = await first.stop()
            #expect(stopped == .exited(0), "cofferd \(stopped); log:\n\(first.log())")

            // HOME lives in the bus directory, so the second daemon reads the same login file.
            let second = try await DaemonHarness.start(.subprocess, on: bus, arguments: Self.cheapKeyDerivation,
                                                       loginPassword: newPassword)
            do {
                let client = try await SecretService.connect(address: bus.address)
                #expect(try await client.collectionProperties(Self.login).locked == false,
                        "the new password did not unlock login; log:\n\(second.log())")
                #expect(try await client.secret(of: item).text == "survives the restart")
                await client.close()
            } catch {
                await second.kill()
                throw error
            }
            let exit = await second.stop()
            #expect(exit == .exited(0), "cofferd \(exit); log:\n\(second.log())")
        }
    }
}

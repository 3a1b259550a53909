// SPDX-License-Identifier: Apache-2.0
// A systemd-credential key slot against the real cofferd: started with $CREDENTIALS_DIRECTORY, it unlocks login
// without any password.

import DBusTransport
import DBusWire
import Foundation
import SecretCrypto
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

@Suite("Key slots: unlocking at start with a systemd credential", .timeLimit(.minutes(2)))
struct CredentialUnlockTests {
    static let login: ObjectPath = "/org/freedesktop/secrets/collection/login"

    /// Calls `member` of io.coffer.KeySlots on the service object.
    static func callKeySlots(_ client: SecretService, _ member: MemberName, _ body: [DBusValue]) async throws
        -> [DBusValue] {
        let call = Message.methodCall(destination: SecretServiceNames.busName, path: SecretServiceNames.servicePath,
                                      interface: SecretServiceNames.keySlotsInterface, member: member, body: body)
        return try await client.connection.call(call).body
    }

    /// Writes `bytes` as the credential `coffer-login` into a fresh directory, as systemd does for the unit.
    static func credentialsDirectory(in bus: TestBus, named name: String, holding bytes: [UInt8]) throws -> String {
        let directory = bus.directory.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let file = directory.appendingPathComponent("coffer-login")
        try Data(bytes).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: file.path)
        return directory.path
    }

    @Test("with the credential in $CREDENTIALS_DIRECTORY login is unlocked at start; a wrong one leaves it locked")
    func credentialUnlocksLogin() async throws {
        try await TestBus.withPrivateBus { bus in
            let key = try SecureRandom.secretBytes(count: 32)
            let first = try await DaemonHarness.start(on: bus, options: .init(arguments: DaemonHarness.cheapKeyDerivation))
            let item: ObjectPath
            do {
                let client = try await SecretService.connect(address: bus.address)
                item = try await client.createItem(in: Self.login, label: "kept", attributes: ["slot": "credential"],
                                                   secret: secret("opened by the credential"), replace: false)
                let reply = try await Self.callKeySlots(client, "AddKeySlot", [
                    .objectPath(Self.login),
                    try client.session.encode(secret(DaemonHarness.testLoginPassword), contentType: "text/plain").dbusValue,
                    .string("systemd-credential"),
                    try client.session.encode(key, contentType: "application/octet-stream").dbusValue,
                ])
                #expect(reply.first?.uint32 == 1)
                await client.close()
            } catch {
                await first.kill()
                throw error
            }
            #expect(await first.stop() == .exited(0))

            // A credential that opens no slot: login stays locked, and the log says why.
            let wrong = try Self.credentialsDirectory(in: bus, named: "wrong-credentials",
                                                      holding: SecureRandom.bytes(count: 32))
            let refused = try await DaemonHarness.start(on: bus, options: .init(
                arguments: DaemonHarness.cheapKeyDerivation, loginPassword: nil,
                environment: ["CREDENTIALS_DIRECTORY": wrong], name: "cofferd-wrong-credential"))
            do {
                let client = try await SecretService.connect(address: bus.address)
                #expect(try await client.collectionProperties(Self.login).locked == true)
                await client.close()
            } catch {
                await refused.kill()
                throw error
            }
            #expect(await refused.stop() == .exited(0))
            #expect(refused.log().contains("opens no key slot"), "log:\n\(refused.log())")

            let right = try Self.credentialsDirectory(in: bus, named: "credentials", holding: key.copyBytes())
            let second = try await DaemonHarness.start(on: bus, options: .init(
                arguments: DaemonHarness.cheapKeyDerivation, loginPassword: nil,
                environment: ["CREDENTIALS_DIRECTORY": right], name: "cofferd-credential"))
            do {
                let client = try await SecretService.connect(address: bus.address)
                #expect(try await client.collectionProperties(Self.login).locked == false,
                        "the credential did not unlock login; log:\n\(second.log())")
                #expect(try await client.secret(of: item).text == "opened by the credential")
                #expect(second.pinentryCommands.isEmpty, "a password was asked for")
                // A password change (PAM's chauthtok, Seahorse) while cofferd holds the credential's key re-keys
                // and wraps the credential's slot anew, so the next start still unlocks with it.
                let call = Message.methodCall(
                    destination: SecretServiceNames.busName, path: SecretServiceNames.servicePath,
                    interface: SecretServiceNames.gnomeInternalInterface, member: "ChangeWithMasterPassword", body: [
                        .objectPath(Self.login),
                        try client.session.encode(secret(DaemonHarness.testLoginPassword), contentType: "text/plain")
                            .dbusValue,
                        try client.session.encode(secret("changed"), contentType: "text/plain").dbusValue,
                    ])
                _ = try await client.connection.call(call)
                await client.close()
            } catch {
                await second.kill()
                throw error
            }
            #expect(await second.stop() == .exited(0))
            #expect(!second.log().contains("master key was kept"), "log:\n\(second.log())")

            let third = try await DaemonHarness.start(on: bus, options: .init(
                arguments: DaemonHarness.cheapKeyDerivation, loginPassword: nil,
                environment: ["CREDENTIALS_DIRECTORY": right], name: "cofferd-after-change"))
            do {
                let client = try await SecretService.connect(address: bus.address)
                #expect(try await client.collectionProperties(Self.login).locked == false,
                        "the credential no longer unlocks login after the change; log:\n\(third.log())")
                #expect(try await client.secret(of: item).text == "opened by the credential")
                await client.close()
            } catch {
                await third.kill()
                throw error
            }
            #expect(await third.stop() == .exited(0))
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Sends cofferd secrets, passwords, labels and attributes through every path a client has, for the leak tests.

import DBusWire
import Foundation
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

/// Distinct values, each unique to one run, that the daemon is given in every way a client can: plain and DH
/// sessions, CreateItem, SetSecret, GetSecret(s), new collections' and unlock prompts' passwords, gnome-keyring's
/// master-password calls (a wrong one too), secret-tool, and calls that fail while carrying a secret.
struct SensitiveWorkload {
    let token = String(UUID().uuidString.prefix(8))

    /// Values that must live only in secure memory: secrets and passwords.
    var secrets: [String] { (1...7).map { "\(token)-secret-\($0)-\(String(repeating: "s", count: 24))" } + passwords }
    var passwords: [String] { [newCollectionPassword, changedPassword, wrongPassword] }
    /// The secrets sent through a plain session, in the clear on the bus and so in libdbus's ordinary buffers.
    var plainSessionSecrets: [String] { [secrets[4], secrets[5]] }
    /// Values that must stay out of logs but may sit in ordinary memory.
    var metadata: [String] { (1...3).map { "\(token)-label-\($0)" } + (1...3).map { "\(token)-attribute-\($0)" } }
    var everything: [String] { secrets + metadata }

    var newCollectionPassword: String { "\(token)-password-new-collection" }
    var changedPassword: String { "\(token)-password-changed" }
    var wrongPassword: String { "\(token)-password-wrong" }

    /// The scripted pinentry's answers, in the order the workload asks: the new collection's password, then its
    /// unlock prompt; then login's, for a test that unlocks it again afterwards.
    var pinentryAnswers: [String] { [newCollectionPassword, changedPassword, DaemonHarness.testLoginPassword] }

    /// Options for the cofferd this workload runs against.
    func options(_ name: String) -> DaemonHarness.SubprocessOptions {
        DaemonSequence.options(name, pinentryAnswers: pinentryAnswers)
    }

    /// Runs everything against the daemon on `bus`, then locks every collection.
    /// - Returns: the D-Bus error texts the daemon answered with, which must not repeat a secret either.
    func run(on bus: TestBus) async throws -> [String] {
        TestLogArchive.register(everything)
        let s = secrets, m = metadata
        let login = DaemonSequence.loginPath
        var errorTexts: [String] = []
        func failure(_ body: () async throws -> Void) async {
            do { try await body() } catch { errorTexts.append("\(error)") }
        }
        // DH session: create, replace the secret, read it back.
        let vault = try await withClient(on: bus) { client in
            let item = try await client.createItem(in: login, label: m[0], attributes: ["hygiene": m[3]],
                                                   secret: secret(s[0]), replace: false)
            try await client.setSecret(of: item, to: secret(s[1]))
            #expect(try await client.secret(of: item).text == s[1])
            try await client.setLabel(of: item, to: m[1])
            try await client.setAttributes(of: item, to: ["hygiene": m[4]])

            // A new collection: its password comes from pinentry; then changed, refused, and unlocked again.
            let vault = try await client.createCollection(label: "hygiene vault")
            _ = try await client.createItem(in: vault, label: m[2], attributes: ["hygiene": m[5]],
                                            secret: secret(s[2]), replace: false)
            try await FaultCalls.changePassword(client, vault, from: newCollectionPassword, to: changedPassword)
            try await client.lock([vault])
            #expect(try await FaultCalls.unlock(client, vault, password: wrongPassword) == false)
            #expect(try await FaultCalls.unlock(client, vault, password: changedPassword))
            try await client.lock([vault])
            #expect(try await client.unlock([vault]) == [vault])  // pinentry answers the changed password
            // Calls that fail while carrying a secret.
            try await client.lock([vault])
            await failure {
                _ = try await client.createItem(in: vault, label: m[0], attributes: ["hygiene": m[3]],
                                                secret: secret(s[3]), replace: false)
            }
            await failure { try await FaultCalls.changePassword(client, vault, from: wrongPassword, to: s[3]) }
            return vault
        }
        // Plain session: the secret crosses the bus in the clear.
        try await withClient(on: bus, algorithm: .plain) { client in
            let item = try await client.createItem(in: login, label: m[1], attributes: ["hygiene": m[4]],
                                                   secret: secret(s[4]), replace: true)
            try await client.setSecret(of: item, to: secret(s[5]))
            #expect(try await client.secrets(of: [item]).values.map(\.text) == [s[5]])
        }
        // A real client, secret-tool.
        let tool = ClientEnvironment(bus: bus)
        let stored = try await tool.secretTool(["store", "--label=\(m[2])", "hygiene", m[5]], input: Data(s[6].utf8))
        stored.expectSuccess("secret-tool store")
        #expect(try await tool.secretTool(["lookup", "hygiene", m[5]]).text == s[6])

        try await withClient(on: bus) { client in
            _ = try await client.lock([login, vault])
        }
        return errorTexts
    }
}

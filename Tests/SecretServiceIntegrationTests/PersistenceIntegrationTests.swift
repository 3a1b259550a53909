// SPDX-License-Identifier: Apache-2.0
// The login collection on disk: secrets survive restarts, nothing is stored in clear, and locking goes by password.

import DBusWire
import Foundation
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

@Suite("PersistenceIntegration: collection files across restarts", .timeLimit(.minutes(2)))
struct PersistenceIntegrationTests {
    @Test("a secret stored with secret-tool is back after a restart; no file holds it, its label or attributes in clear")
    func restartKeepsSecrets() async throws {
        try await withDaemonSequence { daemons in
            let env = ClientEnvironment(bus: daemons.bus)
            let secretText = "restart-secret-q81xZv"
            let label = "Restart label Kp27Wd"
            let attributes = [("restart-attr-name-Wm3", "restart-attr-value-Jd9"),
                              ("second-name-Hy4", "second-value-Lc6")]
            let pairs = attributes.flatMap { [$0.0, $0.1] }

            _ = try await daemons.start(DaemonSequence.options("first"))
            try await env.secretTool(["store", "--label=\(label)"] + pairs, input: Data(secretText.utf8))
                .expectSuccess("store")
            await daemons.stop()

            let second = try await daemons.start(DaemonSequence.options("second"))
            let lookup = try await env.secretTool(["lookup"] + pairs)
            lookup.expectSuccess("lookup after restart")
            // Read after a lookup in login, which waits for the start-up unlock and any line it writes.
            #expect(!second.log().contains("created the login collection"), "the login collection was made again")
            #expect(lookup.text == secretText)
            let search = try await env.secretTool(["search", "--all"] + pairs)
            #expect((search.text + search.stderr).contains("label = \(label)"))
            await daemons.stop()

            let login = try daemons.fileBytes("login")
            #expect(login.starts(with: Data("COFFER\0\u{01}".utf8)), "not a collection file")
            let clear = [secretText, label] + attributes.flatMap { [$0.0, $0.1] }
            let files = try FileManager.default.contentsOfDirectory(at: daemons.dataDirectory,
                                                                    includingPropertiesForKeys: nil)
            #expect(files.contains(daemons.collectionFile("login")))
            for file in files {
                let bytes = try Data(contentsOf: file)
                for text in clear {
                    #expect(!bytes.contains(text: text), "\(file.lastPathComponent) holds '\(text)' in clear")
                }
            }
        }
    }

    @Test("locked items are listed locked; the scripted pinentry unlocks; three wrong passwords dismiss, change nothing")
    func lockAndUnlockWithPinentry() async throws {
        try await withDaemonSequence { daemons in
            let password = DaemonHarness.testLoginPassword
            let daemon = try await daemons.start(DaemonSequence.options(
                "locking", pinentryAnswers: [password, "wrong one", "wrong two", "wrong three", password]))
            let login = DaemonSequence.loginPath
            try await withClient(on: daemons.bus) { client in
                #expect(try await client.readAlias(SecretServiceNames.defaultAlias) == login)
                let item = try await client.createItem(
                    in: login, label: "locked item", attributes: ["lock-test": "1"], secret: secret("behind the lock"),
                    replace: false)

                #expect(try await client.lock([login]) == [login])
                #expect(try await client.collectionProperties(login).locked)
                let found = try await client.searchItems(["lock-test": "1"])
                #expect(found.locked == [item] && found.unlocked.isEmpty, "\(found)")
                let lockedError = await #expect(throws: SecretServiceError.self) { try await client.secret(of: item) }
                #expect(errorName(lockedError) == SecretErrorNames.isLocked)

                // The first answer is the right password.
                #expect(try await client.unlock([login]) == [login])
                #expect(try await client.secret(of: item).text == "behind the lock")
                #expect(daemon.pinentryCommands.filter { $0 == "GETPIN" }.count == 1)

                // The next three are wrong: the prompt asks three times, then completes dismissed.
                #expect(try await client.lock([login]) == [login])
                let before = try daemons.fileBytes("login")
                let dismissed = await #expect(throws: SecretServiceClientError.self) {
                    try await client.unlock([login])
                }
                #expect(dismissed == .dismissed)
                let commands = daemon.pinentryCommands
                #expect(commands.filter { $0 == "GETPIN" }.count == 4, "\(commands)")
                #expect(commands.contains { $0.hasPrefix("SETERROR") }, "retries show no error text: \(commands)")
                #expect(try await client.collectionProperties(login).locked)
                #expect(try await client.searchItems(["lock-test": "1"]).locked == [item])
                #expect(try daemons.fileBytes("login") == before, "a failed unlock changed the file")

                // The daemon is not stuck: the fifth answer, right again, unlocks.
                #expect(try await client.unlock([login]) == [login])
                #expect(try await client.secret(of: item).text == "behind the lock")
            }
            await daemons.stop()
        }
    }

    @Test("--unlock with a wrong password logs an error, keeps serving, leaves login locked and its file untouched")
    func wrongLoginPasswordAtStart() async throws {
        try await withDaemonSequence { daemons in
            _ = try await daemons.start(DaemonSequence.options("create"))
            let login = DaemonSequence.loginPath
            let item = try await withClient(on: daemons.bus) { client in
                try await client.createItem(in: login, label: "kept", attributes: ["wrong-start": "1"],
                                            secret: secret("still here"), replace: false)
            }
            await daemons.stop()
            let before = try daemons.fileBytes("login")

            let daemon = try await daemons.start(DaemonSequence.options(
                "wrong", loginPassword: "not the login password", pinentryAnswers: []))
            try await withClient(on: daemons.bus) { client in
                // Waits for the --unlock, which runs once the name is claimed.
                #expect(try await client.collectionProperties(login).locked)
                #expect(daemon.log().contains("does not unlock the login collection"), "log:\n\(daemon.log())")
                #expect(try await client.readAlias(SecretServiceNames.defaultAlias) == login)
                let found = try await client.searchItems(["wrong-start": "1"])
                #expect(found.locked == [item] && found.unlocked.isEmpty, "\(found)")
                // Still serving: the in-memory session collection takes items.
                let session = SecretObjectPath.alias(SecretServiceNames.sessionCollection).objectPath
                let scratch = try await client.createItem(in: session, label: "s", attributes: ["s": "1"],
                                                          secret: secret("s"), replace: false)
                #expect(try await client.secret(of: scratch).text == "s")
            }
            #expect(try daemons.fileBytes("login") == before)
            await daemons.stop()
            #expect(try daemons.fileBytes("login") == before, "the file changed after a wrong --unlock")

            // And the right password still opens it.
            _ = try await daemons.start(DaemonSequence.options("right"))
            try await withClient(on: daemons.bus) { (client) async throws in
                #expect(try await client.secret(of: item).text == "still here")
            }
            await daemons.stop()
        }
    }
}

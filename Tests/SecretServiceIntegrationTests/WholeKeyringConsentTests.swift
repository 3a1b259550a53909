// SPDX-License-Identifier: Apache-2.0
// The access prompt's second question after "Always allow": this secret only, or the whole keyring.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("Access prompt: always allow a whole keyring")
struct WholeKeyringConsentTests {
    @Test("\"Whole keyring\" lets the app read the keyring's other items without a prompt, across a restart, until revoked")
    func wholeKeyring() async throws {
        try await TestBus.withPrivateBus { bus in
            // "Always allow", then "Whole keyring" (the not-OK button of the second question).
            let daemon = try await DaemonHarness.start(on: bus,
                                                       options: AccessManagementTests.options(["NOTOK", "NOTOK"]))
            let env = ClientEnvironment(bus: bus)
            let coffer = CofferCLI(bus: bus)
            let a = try AccessManagementTests.application("a", env)
            let b = try AccessManagementTests.application("b", env)
            #expect(try await a(["store", "one", "first secret"]) == "stored")
            #expect(try await a(["store", "two", "second secret"]) == "stored")

            #expect(try await b(["unlock", "one"]) == "first secret")
            let commands = daemon.pinentryCommands
            #expect(commands.count { $0 == "CONFIRM" } == 2, "\(commands)")
            #expect(commands.contains("SETNOTOK Whole keyring") && commands.contains("SETOK Only this secret"),
                    "\(commands)")
            let scope = commands.first { $0.hasPrefix("SETDESC Always allow the application ") }
            #expect(scope?.contains("/b/app.py") == true && scope?.contains("“label of one”") == true,
                    "\(commands)")
            // Another item of the keyring, and one stored later, without a new question.
            #expect(try await b(["read", "two"]) == "second secret")
            #expect(try await a(["store", "three", "third secret"]) == "stored")
            #expect(try await b(["read", "three"]) == "third secret")
            #expect(daemon.pinentryCommands.count { $0 == "CONFIRM" } == 2)

            // Kept once for the collection (an entry without an item), and logged without an item.
            let (listed, json) = try await coffer.json(["access", "list", "--collection", "login"])
            #expect(listed.status == 0, "\(listed.stderr)")
            let whole = try #require((json as? [[String: Any]])?.first { $0["item"] as? String == "" }, "\(json)")
            let identity = try #require((whole["allowed"] as? [String])?.first)
            #expect(identity.contains("/b/app.py"), "\(whole)")
            let decision = try await AccessManagementTests.log(coffer, ["--app", "/b/app.py"])
                .first { $0["outcome"] as? String == "always-allowed" }
            #expect(decision?["item"] as? String == "", "\(decision ?? [:])")
            let exit = await daemon.stop()
            #expect(exit == .exited(0), "cofferd \(exit); log:\n\(daemon.log())")

            // After a restart of cofferd the keyring is still B's to read; revoking takes it back.
            let second = try await DaemonHarness.start(on: bus,
                                                       options: AccessManagementTests.options([], name: "second"))
            #expect(try await b(["read", "two"]) == "second secret")
            #expect(second.pinentryCommands.count { $0 == "CONFIRM" } == 0)
            let revoke = try await coffer.run(["access", "revoke", identity])
            #expect(revoke.status == 0, "\(revoke.stderr)")
            #expect(try await b(["read", "two"]) == "locked")
            #expect(try await b(["read", "one"]) == "locked")
            let secondExit = await second.stop()
            #expect(secondExit == .exited(0), "cofferd \(secondExit); log:\n\(second.log())")
        }
    }

    @Test("after \"Always allow\", OK keeps it to the secret and Cancel takes the answer back")
    func narrowerAnswers() async throws {
        try await TestBus.withPrivateBus { bus in
            let daemon = try await DaemonHarness.start(on: bus,
                                                       options: AccessManagementTests.options(["NOTOK", "CANCEL",
                                                                                               "NOTOK", "OK"]))
            let env = ClientEnvironment(bus: bus)
            let a = try AccessManagementTests.application("a", env)
            let b = try AccessManagementTests.application("b", env)
            #expect(try await a(["store", "one", "first secret"]) == "stored")
            #expect(try await a(["store", "two", "second secret"]) == "stored")
            // Cancel at the second question: nothing is allowed.
            #expect(try await b(["unlock", "one"]) == "denied")
            #expect(try await b(["read", "one"]) == "locked")
            // "Only this secret": that item from now on, not the other one.
            #expect(try await b(["unlock", "one"]) == "first secret")
            #expect(try await b(["read", "one"]) == "first secret")
            #expect(try await b(["read", "two"]) == "locked")
            #expect(daemon.pinentryCommands.count { $0 == "CONFIRM" } == 4, "\(daemon.pinentryCommands)")
            let exit = await daemon.stop()
            #expect(exit == .exited(0), "cofferd \(exit); log:\n\(daemon.log())")
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Per-application access control end to end: two programs of different identity against a real cofferd.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("Access control between applications")
struct AccessControlTests {
    /// One python program; its identity is the interpreter plus the script's path, so two copies at different
    /// paths are two applications. `store` creates the shared item, `read` reads it only if it is not locked for
    /// this program, `unlock` unlocks it first (which asks the user) and then reads it; `delete` deletes the
    /// default collection; `search` counts the service's and the collection's matches.
    static let program = """
        import sys, secretstorage
        conn = secretstorage.dbus_init()
        role = sys.argv[1]
        if role == 'store':
            col = secretstorage.get_default_collection(conn)
            col.create_item('shared item', {'acl': 'test'}, b'the secret of A', replace=True)
            print('stored')
            sys.exit(0)
        if role == 'delete':
            try:
                secretstorage.get_default_collection(conn).delete()
            except secretstorage.exceptions.PromptDismissedException:
                print('kept')
                sys.exit(0)
            print('deleted')
            sys.exit(0)
        items = list(secretstorage.search_items(conn, {'acl': 'test'}))
        if role == 'search':
            col = secretstorage.get_default_collection(conn)
            print(len(items), len(list(col.search_items({'acl': 'test'}))))
            sys.exit(0)
        assert len(items) == 1, items
        item = items[0]
        if role == 'unlock' and item.is_locked():
            if item.unlock():
                print('denied')
                sys.exit(0)
        if item.is_locked():
            print('locked')
            try:
                item.get_secret()
                print('read a locked secret')
            except secretstorage.exceptions.LockedException:
                pass
            sys.exit(0)
        print('secret', item.get_secret().decode())
        """

    /// Writes the program to `name/app.py` in the bus directory and returns a runner for it.
    static func application(_ name: String, _ env: ClientEnvironment) throws -> @Sendable (String) async throws -> String {
        let directory = env.bus.directory.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = directory.appendingPathComponent("app.py")
        try Data(program.utf8).write(to: script)
        return { role in
            let output = try await env.run("/usr/bin/python3", [script.path, role])
            output.expectSuccess("\(name) \(role)")
            return output.text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// Runs `body` against a cofferd started with `--access-control policy` (`nil`: none, so cofferd's own default)
    /// whose scripted pinentry answers confirmations with `confirms`, then stops it and expects a clean exit.
    static func withDaemon(policy: String? = "ask", confirms: [String], arguments: [String] = [],
                           _ body: (DaemonHarness, ClientEnvironment) async throws -> Void) async throws {
        try await TestBus.withPrivateBus { bus in
            var options = DaemonHarness.SubprocessOptions(arguments: arguments)
            options.accessControl = policy
            options.pinentryConfirms = confirms
            let daemon = try await DaemonHarness.start(on: bus, options: options)
            try await body(daemon, ClientEnvironment(bus: bus))
            let exit = await daemon.stop()
            #expect(exit == .exited(0), "cofferd \(exit); log:\n\(daemon.log())")
        }
    }

    static func confirmations(_ daemon: DaemonHarness) -> Int {
        daemon.pinentryCommands.count { $0 == "CONFIRM" }
    }

    @Test("A reads its own item silently; B sees it locked and is asked: allow once, deny, always")
    func consent() async throws {
        try await TestBus.withPrivateBus { bus in
            var options = DaemonHarness.SubprocessOptions(arguments: ["--access-control", "ask"])
            options.pinentryConfirms = ["OK", "CANCEL", "NOTOK", "OK"]
            let daemon = try await DaemonHarness.start(on: bus, options: options)
            let env = ClientEnvironment(bus: bus)
            let a = try Self.application("a", env)
            let b = try Self.application("b", env)

            #expect(try await a("store") == "stored")
            #expect(try await a("read") == "secret the secret of A")
            #expect(Self.confirmations(daemon) == 0, "the creator was asked")

            #expect(try await b("read") == "locked")
            #expect(Self.confirmations(daemon) == 0)
            // Allow once: B reads now, but its next run (a new connection) is asked again.
            #expect(try await b("unlock") == "secret the secret of A")
            #expect(Self.confirmations(daemon) == 1)
            #expect(try await b("read") == "locked")
            // Deny.
            #expect(try await b("unlock") == "denied")
            #expect(Self.confirmations(daemon) == 2)
            // Always allow, for this secret only (the second question): later runs of B read without a question.
            #expect(try await b("unlock") == "secret the secret of A")
            #expect(try await b("read") == "secret the secret of A")
            #expect(Self.confirmations(daemon) == 4)

            // The prompt names the application first, then the item.
            let description = daemon.pinentryCommands.first { $0.hasPrefix("SETDESC The application ") }
            #expect(description?.contains("/b/app.py") == true, "\(daemon.pinentryCommands)")
            #expect(description?.contains("shared item") == true)
            #expect(daemon.pinentryCommands.contains("SETNOTOK Always allow"))

            let exit = await daemon.stop()
            #expect(exit == .exited(0), "cofferd \(exit); log:\n\(daemon.log())")

            // "Always" is kept in the collection: a restarted cofferd lets B read without asking.
            var again = DaemonHarness.SubprocessOptions(arguments: ["--access-control", "ask"], name: "second")
            again.pinentryConfirms = ["OK", "CANCEL"]
            let second = try await DaemonHarness.start(on: bus, options: again)
            #expect(try await b("read") == "secret the secret of A")
            #expect(try await a("read") == "secret the secret of A")
            #expect(Self.confirmations(second) == 0)

            // secret-tool is a third application: it unlocks through the prompt (answered OK).
            let lookup = try await env.secretTool(["lookup", "acl", "test"])
            lookup.expectSuccess("secret-tool lookup")
            #expect(lookup.text == "the secret of A")
            #expect(Self.confirmations(second) == 1)

            // `coffer access list` names A as the creator and B as always allowed; revoking locks B out again.
            let coffer = CofferCLI(bus: bus)
            let (listed, json) = try await coffer.json(["access", "list", "--collection", "login"])
            #expect(listed.status == 0, "\(listed.stderr)")
            let entries = try #require(json as? [[String: Any]])
            let shared = try #require(entries.first { ($0["creator"] as? String)?.contains("/a/app.py") == true },
                                      "\(entries)")
            let allowed = try #require(shared["allowed"] as? [String])
            #expect(allowed.count == 1 && allowed[0].contains("/b/app.py"), "\(allowed)")
            let (revokedRun, revoked) = try await coffer.json(["access", "revoke", allowed[0]])
            #expect(revokedRun.status == 0, "\(revokedRun.stderr)")
            #expect((revoked as? [String: [String]])?["revoked"] == [shared["item"] as? String ?? "?"], "\(revoked)")
            #expect(try await b("read") == "locked")
            #expect(try await a("read") == "secret the secret of A")

            // Deleting the keyring would delete A's item: B is asked, and a denial keeps it.
            #expect(try await b("delete") == "kept")
            #expect(Self.confirmations(second) == 2)
            #expect(try await a("read") == "secret the secret of A")
            let secondExit = await second.stop()
            #expect(secondExit == .exited(0), "cofferd \(secondExit); log:\n\(second.log())")
        }
    }

    @Test("One program alone (secret-tool, python keyring) is never asked under ask")
    func singleProgramNeverPrompted() async throws {
        try await Self.withDaemon(confirms: ["CANCEL"]) { daemon, env in
            try await env.secretTool(["store", "--label", "mine", "who", "tool"], input: Data("tool secret".utf8))
                .expectSuccess("secret-tool store")
            let lookup = try await env.secretTool(["lookup", "who", "tool"])
            lookup.expectSuccess("secret-tool lookup")
            #expect(lookup.text == "tool secret")
            try await env.secretTool(["clear", "who", "tool"]).expectSuccess("secret-tool clear")

            let directory = env.bus.directory.appendingPathComponent("kr", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let script = directory.appendingPathComponent("kr.py")
            try Data("""
                import sys, keyring
                from keyring.backends import SecretService
                keyring.set_keyring(SecretService.Keyring())
                if sys.argv[1] == 'set': keyring.set_password('svc', 'bob', 'keyring secret')
                print(keyring.get_password('svc', 'bob'))
                """.utf8).write(to: script)
            for role in ["set", "get"] {
                let output = try await env.run("/usr/bin/python3", [script.path, role])
                output.expectSuccess("keyring \(role)")
                #expect(output.text == "keyring secret\n")
            }
            #expect(Self.confirmations(daemon) == 0, "\(daemon.pinentryCommands)")
        }
    }

    @Test("strict leaves other applications' items out of searches")
    func strict() async throws {
        try await Self.withDaemon(policy: "strict", confirms: ["CANCEL"]) { daemon, env in
            let a = try Self.application("a", env)
            let b = try Self.application("b", env)
            #expect(try await a("store") == "stored")
            #expect(try await a("search") == "1 1")
            #expect(try await b("search") == "0 0")
            #expect(Self.confirmations(daemon) == 0)
        }
    }

    @Test("With access-control = off another program reads silently, as before")
    func offReadsSilently() async throws {
        try await TestBus.withPrivateBus { bus in
            let home = bus.directory.appendingPathComponent("home/.config/coffer", isDirectory: true)
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            let config = home.appendingPathComponent("cofferd.conf")
            try Data("[defaults]\naccess-control = ask\n[collection login]\naccess-control = off\n".utf8).write(to: config)
            var options = DaemonHarness.SubprocessOptions(arguments: ["--config", config.path, "--access-control", "ask"])
            options.pinentryConfirms = ["CANCEL"]
            let daemon = try await DaemonHarness.start(on: bus, options: options)
            let env = ClientEnvironment(bus: bus)
            let a = try Self.application("a", env)
            let b = try Self.application("b", env)
            #expect(try await a("store") == "stored")
            #expect(try await b("read") == "secret the secret of A")
            #expect(Self.confirmations(daemon) == 0)
            let exit = await daemon.stop()
            #expect(exit == .exited(0), "cofferd \(exit); log:\n\(daemon.log())")
        }
    }
}

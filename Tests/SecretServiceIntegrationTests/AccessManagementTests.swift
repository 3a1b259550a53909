// SPDX-License-Identifier: Apache-2.0
// Managing access decisions against a real cofferd: the access log, grants ahead of time, whole collections.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("Access decisions: log, grant, whole collections")
struct AccessManagementTests {
    /// A python program whose identity is its path. `store NAME VALUE` stores an item with attribute `name=NAME`;
    /// `read NAME` reads it if not locked for this program (and otherwise calls `GetSecret` anyway, which is
    /// refused);
    /// `unlock NAME` unlocks it first (which asks the user), then reads.
    static let program = """
        import sys, secretstorage
        conn = secretstorage.dbus_init()
        role, name = sys.argv[1], sys.argv[2]
        if role == 'store':
            col = secretstorage.get_default_collection(conn)
            col.create_item('label of ' + name, {'name': name}, sys.argv[3].encode(), replace=True)
            print('stored')
            sys.exit(0)
        items = list(secretstorage.search_items(conn, {'name': name}))
        assert len(items) == 1, items
        item = items[0]
        if role == 'unlock' and item.is_locked():
            if item.unlock():
                print('denied')
                sys.exit(0)
        if item.is_locked():
            # GetSecret itself (secretstorage's get_secret stops at the Locked property): cofferd refuses it.
            from secretstorage.util import open_session
            try:
                item._item.call('GetSecret', 'o', open_session(conn).object_path)
                print('read a locked secret')
            except Exception as error:
                print('locked' if 'IsLocked' in repr(error) else repr(error))
            sys.exit(0)
        print(item.get_secret().decode())
        """

    /// Writes `program` to `name/app.py` in the bus directory and returns a runner for it.
    static func application(_ name: String, _ env: ClientEnvironment, program: String = program) throws
        -> @Sendable ([String]) async throws -> String {
        let directory = env.bus.directory.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = directory.appendingPathComponent("app.py")
        try Data(program.utf8).write(to: script)
        return { arguments in
            let output = try await env.run("/usr/bin/python3", [script.path] + arguments)
            output.expectSuccess("\(name) \(arguments)")
            return output.text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// `coffer access log --json` with extra filters.
    static func log(_ coffer: CofferCLI, _ filters: [String] = []) async throws -> [[String: Any]] {
        let (run, json) = try await coffer.json(["access", "log"] + filters)
        #expect(run.status == 0, "\(run.stderr)")
        return try #require(json as? [[String: Any]], "\(json)")
    }

    /// Where the tests of a key change start: keyring `work` (password `old password`, the default), in which
    /// application `a` stored `mail` and application `b` read it (two logged uses); then that cofferd stopped and a
    /// second one started on the same data, with `work` unlocked, so it has sealed nothing with the old key yet.
    /// - Returns: the second cofferd, and a runner for application `a`.
    static func workWithTwoLoggedUses(on bus: TestBus) async throws
        -> (second: DaemonHarness, a: @Sendable ([String]) async throws -> String) {
        let env = ClientEnvironment(bus: bus)
        let coffer = CofferCLI(bus: bus)
        let a = try application("a", env)
        let b = try application("b", env)
        let first = try await DaemonHarness.start(on: bus, options: options(["OK"]))
        let create = try await coffer.run(["create-keychain", "work"], input: "old password\n")
        #expect(create.status == 0, "\(create.stderr)")
        #expect(try await coffer.run(["default-keychain", "-s", "work"]).status == 0)
        #expect(try await a(["store", "mail", "the mail secret"]) == "stored")
        #expect(try await b(["unlock", "mail"]) == "the mail secret")
        let before = try await log(coffer, ["--collection", "work"])
        #expect(before.count == 2, "\(before)")
        _ = await first.stop()
        let second = try await DaemonHarness.start(on: bus, options: options([], name: "second"))
        #expect(try await coffer.run(["unlock-keychain", "work"], input: "old password\n").status == 0)
        return (second, a)
    }

    static func options(_ confirms: [String], name: String = "cofferd") -> DaemonHarness.SubprocessOptions {
        var options = DaemonHarness.SubprocessOptions(arguments: ["--access-control", "ask"], name: name)
        options.pinentryConfirms = confirms
        return options
    }

    @Test("every decision and every allowed read is logged with application, pid, item and outcome; the log persists")
    func accessLog() async throws {
        try await TestBus.withPrivateBus { bus in
            let daemon = try await DaemonHarness.start(on: bus, options: Self.options(["OK", "CANCEL", "NOTOK", "OK"]))
            let env = ClientEnvironment(bus: bus)
            let coffer = CofferCLI(bus: bus)
            let a = try Self.application("a", env)
            let b = try Self.application("b", env)
            #expect(try await a(["store", "mail", "the mail secret"]) == "stored")
            #expect(try await a(["read", "mail"]) == "the mail secret")
            let own = try await Self.log(coffer)
            #expect(own.map { $0["outcome"] as? String } == ["read"], "\(own)")
            #expect((own.first?["application"] as? String)?.contains("/a/app.py") == true, "\(own)")

            #expect(try await b(["read", "mail"]) == "locked")
            #expect(try await b(["unlock", "mail"]) == "the mail secret")
            #expect(try await b(["unlock", "mail"]) == "denied")
            #expect(try await b(["unlock", "mail"]) == "the mail secret")
            #expect(try await b(["read", "mail"]) == "the mail secret")

            let entries = Array(try await Self.log(coffer).dropFirst())
            #expect(entries.map { $0["outcome"] as? String }
                    == ["refused", "allowed-once", "read", "denied", "always-allowed", "read", "read"], "\(entries)")
            for entry in entries {
                #expect((entry["application"] as? String)?.contains("/b/app.py") == true, "\(entry)")
                #expect((entry["name"] as? String)?.hasPrefix("/") == true, "\(entry)")
                #expect((entry["pid"] as? Int ?? 0) > 0, "\(entry)")
                #expect(entry["collection"] as? String == "login", "\(entry)")
                #expect((entry["item"] as? String)?.hasPrefix("/org/freedesktop/secrets/collection/login/") == true)
            }
            let identity = try #require(entries.first?["application"] as? String)

            // The file: the user's alone, in the data directory, sealed: neither the secret, nor the label, nor the
            // application or the item is in it in clear.
            let file = daemon.dataDirectory.appendingPathComponent("access.log")
            let mode = try #require(FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int)
            #expect(mode == 0o600)
            let bytes = try Data(contentsOf: file)
            for clear in ["the mail secret", "label of", "app.py", "always-allowed", String(identity.suffix(12))] {
                #expect(bytes.range(of: Data(clear.utf8)) == nil, "\(clear) is in the log file in clear")
            }

            // Filters, and the text form.
            #expect(try await Self.log(coffer, ["--app", "/a/app.py"]).count == 1)
            #expect(try await Self.log(coffer, ["--app", "/b/app.py", "--collection", "login"]).count == 7)
            let item = try #require(entries.first?["item"] as? String)
            #expect(try await Self.log(coffer, ["--item", item]).count == 8)
            #expect(try await Self.log(coffer, ["--item", item + "_"]).isEmpty)
            #expect(try await Self.log(coffer, ["--since", "2999-01-01"]).isEmpty)
            #expect(try await Self.log(coffer, ["--since", "1h"]).count == 8)
            let plain = try await coffer.run(["access", "log"])
            #expect(plain.status == 0 && plain.text.contains("always-allowed"), "\(plain.text)\(plain.stderr)")
            let bad = try await coffer.run(["access", "log", "--since", "yesterday-ish"])
            #expect(bad.status == 64 && bad.stderr.split(separator: "\n").count == 1, "\(bad.stderr)")

            // Revoking is logged with the program that asked; the log survives a restart of cofferd.
            let revoke = try await coffer.run(["access", "revoke", identity])
            #expect(revoke.status == 0, "\(revoke.stderr)")
            let exit = await daemon.stop()
            #expect(exit == .exited(0), "cofferd \(exit); log:\n\(daemon.log())")
            let second = try await DaemonHarness.start(on: bus, options: Self.options([], name: "second"))
            let after = try await Self.log(coffer)
            #expect(after.count == 9, "\(after)")
            #expect(after.last?["outcome"] as? String == "revoked")
            #expect(after.last?["application"] as? String == identity)
            #expect((after.last?["requester"] as? String)?.contains("/coffer@") == true, "\(after.last ?? [:])")
            let secondExit = await second.stop()
            #expect(secondExit == .exited(0), "cofferd \(secondExit); log:\n\(second.log())")
        }
    }

    @Test("grant: an item or a whole collection ahead of time, after the user confirms; revoke takes it back")
    func grant() async throws {
        try await TestBus.withPrivateBus { bus in
            // Confirmations: the grant of one item (OK), the whole collection (OK), a refused grant (CANCEL).
            let daemon = try await DaemonHarness.start(on: bus, options: Self.options(["OK", "OK", "CANCEL"]))
            let env = ClientEnvironment(bus: bus)
            let coffer = CofferCLI(bus: bus)
            let a = try Self.application("a", env)
            let b = try Self.application("b", env)
            #expect(try await a(["store", "one", "first secret"]) == "stored")
            #expect(try await a(["store", "two", "second secret"]) == "stored")
            // B asks once without a prompt; the log names it, which is where its identity is found.
            #expect(try await b(["read", "one"]) == "locked")
            let identity = try #require(try await Self.log(coffer, ["--app", "/b/app.py"]).first?["application"]
                as? String)
            let (listed, listJSON) = try await coffer.json(["access", "list", "--collection", "login"])
            #expect(listed.status == 0, "\(listed.stderr)")
            // Items come oldest first: "one", then "two".
            let items = try #require(listJSON as? [[String: Any]])
            #expect(items.count == 2, "\(items)")
            let one = try #require(items.first?["item"] as? String)

            // Not an identity: one line, bad arguments, nothing asked.
            let bogus = try await coffer.run(["access", "grant", "firefox", "--collection", "login"])
            #expect(bogus.status == 64 && bogus.stderr.split(separator: "\n").count == 1, "\(bogus.stderr)")
            let noTarget = try await coffer.run(["access", "grant", identity])
            #expect(noTarget.status == 64, "\(noTarget.stderr)")

            // One item.
            let (granted, grantJSON) = try await coffer.json(["access", "grant", identity, one])
            #expect(granted.status == 0, "\(granted.stderr)")
            #expect((grantJSON as? [String: [String]])?["granted"] == [one], "\(grantJSON)")
            let description = daemon.pinentryCommands.first { $0.hasPrefix("SETDESC The application ") }
            #expect(description?.contains("asks to always allow \(identity)") == true, "\(daemon.pinentryCommands)")
            #expect(description?.contains("coffer") == true)
            #expect(try await b(["read", "one"]) == "first secret")
            #expect(try await b(["read", "two"]) == "locked")

            // The whole collection, present and future items.
            let (whole, wholeJSON) = try await coffer.json(["access", "grant", identity, "--collection", "login"])
            #expect(whole.status == 0, "\(whole.stderr)")
            #expect((wholeJSON as? [String: [String]])?["granted"] == ["/org/freedesktop/secrets/collection/login"])
            #expect(try await b(["read", "two"]) == "second secret")
            #expect(try await a(["store", "three", "third secret"]) == "stored")
            #expect(try await b(["read", "three"]) == "third secret")
            let (_, afterGrant) = try await coffer.json(["access", "list", "--collection", "login"])
            let wholeEntry = try #require((afterGrant as? [[String: Any]])?.first { $0["item"] as? String == "" })
            #expect(wholeEntry["allowed"] as? [String] == [identity], "\(wholeEntry)")

            // A grant the user turns down changes nothing and ends as dismissed (exit 128).
            let c = try Self.application("c", env)
            #expect(try await c(["read", "one"]) == "locked")
            let other = try #require(try await Self.log(coffer, ["--app", "/c/app.py"]).first?["application"]
                as? String)
            let refused = try await coffer.run(["access", "grant", other, "--collection", "login"])
            #expect(refused.status == 128, "\(refused.stderr)")
            #expect(try await c(["read", "one"]) == "locked")

            // The whole collection survives a restart, and revoke without items takes it and the item's back.
            _ = await daemon.stop()
            let second = try await DaemonHarness.start(on: bus, options: Self.options([], name: "second"))
            #expect(try await b(["read", "three"]) == "third secret")
            let (revoked, revokedJSON) = try await coffer.json(["access", "revoke", identity, "--collection", "login"])
            #expect(revoked.status == 0, "\(revoked.stderr)")
            let taken = try #require((revokedJSON as? [String: [String]])?["revoked"])
            #expect(Set(taken) == ["/org/freedesktop/secrets/collection/login", one], "\(taken)")
            #expect(try await b(["read", "three"]) == "locked")
            #expect(try await b(["read", "one"]) == "locked")

            let outcomes = try await Self.log(coffer).compactMap { $0["outcome"] as? String }
            #expect(outcomes.filter { $0 == "granted" }.count == 2, "\(outcomes)")
            #expect(outcomes.contains("grant-refused"))
            #expect(outcomes.filter { $0 == "revoked" }.count == 2, "\(outcomes)")
            let exit = await second.stop()
            #expect(exit == .exited(0), "cofferd \(exit); log:\n\(second.log())")
        }
    }

    @Test("a call from another user is refused and logged with its uid",
          .enabled(if: getuid() == 0, "switching to another uid needs root"))
    func otherUser() async throws {
        let bus = try TestBus(otherUsers: true)
        defer { bus.stop() }
        // nobody reaches the socket through the scratch directory.
        chmod(bus.directory.path, 0o711)
        let socket = try #require(bus.address.split(separator: ",").first?.split(separator: "=", maxSplits: 1).last)
        chmod(String(socket), 0o777)
        let daemon = try await DaemonHarness.start(on: bus, options: Self.options([]))
        let env = ClientEnvironment(bus: bus)
        let call = try await env.run("/usr/bin/setpriv", [
            "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/dbus-send", "--bus=\(bus.address)",
            "--print-reply", "--dest=org.freedesktop.secrets", "/org/freedesktop/secrets",
            "org.freedesktop.Secret.Service.SearchItems", "dict:string:string:a,b",
        ])
        #expect(call.status != 0 && call.stderr.contains("AccessDenied"), "\(call.text)\(call.stderr)")
        let entries = try await Self.log(CofferCLI(bus: bus))
        #expect(entries.count == 1, "\(entries)")
        #expect(entries.first?["outcome"] as? String == "other-user")
        #expect(entries.first?["application"] as? String == "uid:65534")
        #expect((entries.first?["pid"] as? Int ?? 0) > 0)
        let exit = await daemon.stop()
        #expect(exit == .exited(0), "cofferd \(exit); log:\n\(daemon.log())")
    }
}

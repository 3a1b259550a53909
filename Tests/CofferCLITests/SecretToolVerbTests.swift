// SPDX-License-Identifier: Apache-2.0
// secret-tool's verbs through the built coffer against cofferd, checked against Debian's secret-tool itself.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("coffer secret-tool verbs")
struct SecretToolVerbTests {
    @Test func storeLookupSearchClearLock() async throws {
        try await Provider.cofferd.with { bus, _ in
            let coffer = CofferCLI(bus: bus)
            let client = ClientEnvironment(bus: bus)
            // store keeps stdin byte for byte, as secret-tool does (the newline included).
            let store = try await coffer.run(["store", "--label=Mail", "service", "mail", "user", "ann"], input: "pw\n")
            #expect(store.status == 0, "\(store.stderr)")
            #expect(try await client.secretTool(["lookup", "service", "mail"]).text == "pw\n")
            #expect(try await coffer.run(["lookup", "service", "mail", "user", "ann"]).text == "pw\n")

            // What secret-tool stores, coffer finds; store replaces an item with the same attributes.
            _ = try await client.secretTool(["store", "--label=Other", "service", "mail", "user", "bob"],
                                            input: Data("bobs".utf8))
            #expect(try await coffer.run(["store", "--label=Mail", "service", "mail", "user", "ann"], input: "pw2").status == 0)
            #expect(try await client.secretTool(["lookup", "user", "ann"]).text == "pw2")

            let search = try await coffer.run(["search", "--all", "service", "mail"])
            #expect(search.status == 0)
            #expect(search.text.components(separatedBy: "\n[/").count == 2)  // two blocks
            #expect(search.text.contains("label = Mail\nsecret = pw2\n"))
            #expect(search.text.contains("attribute.user = bob"))
            #expect(search.text.contains("label = Other\nsecret = bobs\n"))
            let first = try await coffer.run(["search", "service", "mail"])
            #expect(first.text.components(separatedBy: "label = ").count == 2)  // only the first match
            let (_, json) = try await coffer.json(["search", "--all", "service", "mail"])
            let items = try #require(json as? [[String: Any]])
            #expect(Set(items.compactMap { $0["secret"] as? String }) == ["pw2", "bobs"])
            #expect(items.allSatisfy { ($0["attributes"] as? [String: String])?["service"] == "mail" })
            let none = try await coffer.run(["search", "service", "none"])
            #expect(none.status == 0 && none.text.isEmpty)  // secret-tool prints nothing and succeeds

            // lock (secret-tool 0.20.5 crashes here) locks; search --unlock then needs the scripted pinentry.
            let lock = try await coffer.run(["lock", "--collection=login"])
            #expect(lock.status == 0, "\(lock.stderr)")
            let locked = try await coffer.run(["search", "service", "mail"])
            #expect(locked.status == 0 && locked.text.contains("label = ") && !locked.text.contains("secret = "))
            let unlocked = try await coffer.run(["search", "--unlock", "service", "mail"])
            #expect(unlocked.status == 0 && unlocked.text.contains("secret = "), "\(unlocked.stderr)")
            #expect(try await coffer.run(["lock"]).status == 0)  // no --collection: every collection

            let clear = try await coffer.run(["clear", "service", "mail"])  // unlocks through the scripted pinentry
            #expect(clear.status == 0, "\(clear.stderr)")
            #expect(try await client.secretTool(["lookup", "service", "mail"]).status != 0)
            let cleared = try await coffer.run(["clear", "service", "mail"])
            #expect(cleared.status == 44 && cleared.stderr == "coffer: no matching item\n")
            #expect(try await coffer.run(["lookup", "service", "mail"]).status == 44)

            // secret-tool's argument shapes are enforced: pairs, a label.
            #expect(try await coffer.run(["lookup", "odd"]).status == 64)
            #expect(try await coffer.run(["store", "a", "b"], input: "x").status == 64)
            #expect(try await coffer.run(["store", "--label=x", "--collection=nowhere", "a", "b"], input: "x").status == 50)
        }
    }

    /// A secret typed at a terminal is read without echo: run under a pseudo-terminal, the password never shows
    /// in what the terminal displayed. Driven by python's pty module, which waits for the prompt before typing.
    @Test func terminalInputIsNotEchoed() async throws {
        try await Provider.cofferd.with { bus, _ in
            let coffer = CofferCLI(bus: bus)
            let executable = try CofferCLI.executable().path
            let script = """
                import os, pty, signal, sys
                signal.alarm(30)  # a hang fails the test instead of blocking the run
                pid, fd = pty.fork()
                if pid == 0:
                    os.execv(\(pythonString(executable)), ["coffer", "store", "--label=tty", "origin", "tty"])
                seen = b""
                while b"Password: " not in seen:
                    chunk = os.read(fd, 1024)
                    if not chunk:
                        break
                    seen += chunk
                os.write(fd, b"typed secret\\n")
                while True:
                    try:
                        chunk = os.read(fd, 1024)
                    except OSError:
                        break
                    if not chunk:
                        break
                    seen += chunk
                _, status = os.waitpid(pid, 0)
                sys.stdout.write(seen.decode("utf-8", "replace"))
                sys.exit(os.waitstatus_to_exitcode(status))
                """
            let output = try await coffer.environment.python(script)
            #expect(output.status == 0, "\(output.stderr)")
            #expect(output.text.contains("Password: "))
            #expect(!output.text.contains("typed secret"))
            #expect(try await coffer.run(["lookup", "origin", "tty"]).text == "typed secret")
        }
    }

    private func pythonString(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

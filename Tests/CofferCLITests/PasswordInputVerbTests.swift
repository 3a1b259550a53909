// SPDX-License-Identifier: Apache-2.0
// How add-*-password takes a piped password (its trailing newline dropped, empty refused) and how the find verbs
// reach items other programs stored (--include-foreign).

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("coffer password input and foreign items")
struct PasswordInputVerbTests {
    @Test func pipedPasswordLosesTrailingNewlineAndEmptyIsRefused() async throws {
        try await Provider.cofferd.with { bus, _ in
            let coffer = CofferCLI(bus: bus)
            // `echo pw | coffer add-generic-password …` stores "pw", as every other password input of coffer reads it.
            let add = try await coffer.run(["add-generic-password", "-a", "ann", "-s", "echoed"], input: "pw\n")
            #expect(add.status == 0, "\(add.stderr)")
            #expect(try await coffer.run(["find-generic-password", "-s", "echoed", "-w"]).text == "pw\n")
            let crlf = try await coffer.run(["add-internet-password", "-a", "ann", "-s", "crlf.example", "-w"],
                                            input: "web\r\n")
            #expect(crlf.status == 0, "\(crlf.stderr)")
            #expect(try await coffer.run(["find-internet-password", "-s", "crlf.example", "-w"]).text == "web\n")
            // Only the final line ending goes: a multi-line secret keeps its inner lines.
            _ = try await coffer.run(["add-generic-password", "-a", "ann", "-s", "lines"], input: "one\ntwo\n")
            #expect(try await coffer.run(["find-generic-password", "-s", "lines", "-w"]).text == "one\ntwo\n")

            // Nothing piped, a lone newline, or -w "": exit 128 with one line, and nothing stored.
            for (arguments, input) in [([String](), ""), ([], "\n"), (["-w", ""], "")] {
                let empty = try await coffer.run(["add-generic-password", "-a", "ann", "-s", "empty"] + arguments,
                                                 input: input)
                #expect(empty.status == 128, "\(arguments) \(input.debugDescription)")
                // One line says why (-w on argv adds its usual warning before it).
                let lines = empty.stderr.split(separator: "\n")
                #expect(lines.count == (arguments.isEmpty ? 1 : 2))
                #expect(lines.last?.contains("--allow-empty-password") == true)
            }
            #expect(try await coffer.run(["find-generic-password", "-s", "empty"]).status == 44)
            let allowed = try await coffer.run(["add-generic-password", "-a", "ann", "-s", "empty",
                                                "--allow-empty-password"], input: "")
            #expect(allowed.status == 0, "\(allowed.stderr)")
            #expect(try await coffer.run(["find-generic-password", "-s", "empty", "-w"]).text == "\n")
        }
    }

    @Test func includeForeignFindsWhatGitsCredentialHelperStored() async throws {
        try await Provider.cofferd.with { bus, _ in
            let coffer = CofferCLI(bus: bus)
            let client = ClientEnvironment(bus: bus)
            // The attributes git-credential-libsecret writes for https://alice@example.com.
            let stored = try await client.secretTool(
                ["store", "--label=Git: https://example.com/", "xdg:schema", "org.gnome.keyring.NetworkPassword",
                 "server", "example.com", "user", "alice", "protocol", "https"], input: Data("git token".utf8))
            #expect(stored.status == 0, "\(stored.stderr)")

            #expect(try await coffer.run(["find-internet-password", "-s", "example.com", "-w"]).status == 44)
            let found = try await coffer.run(["find-internet-password", "-s", "example.com", "--include-foreign", "-w"])
            #expect(found.status == 0, "\(found.stderr)")
            #expect(found.text == "git token\n")
            let attributes = try await coffer.run(["find-internet-password", "-s", "example.com", "--include-foreign"])
            #expect(attributes.text.contains("\"acct\"<blob>=\"alice\""))

            // The same for generic passwords written by secret-tool with service and account.
            _ = try await client.secretTool(["store", "--label=tool", "service", "tool-svc", "account", "bob"],
                                            input: Data("tool pw".utf8))
            #expect(try await coffer.run(["find-generic-password", "-s", "tool-svc", "-w"]).status == 44)
            #expect(try await coffer.run(["find-generic-password", "-s", "tool-svc", "-w", "--include-foreign"]).text
                    == "tool pw\n")
        }
    }
}

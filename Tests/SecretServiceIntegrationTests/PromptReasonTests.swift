// SPDX-License-Identifier: Apache-2.0
// With no display and no terminal, each question a prompt would have asked tells the client the `coffer` command
// that gets the same done from a terminal, and that command does it.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("Prompt reasons name the way out", .timeLimit(.minutes(2)))
struct PromptReasonTests {
    /// `unlock ID`, `create LABEL` and `change ID` run the prompt of Unlock, CreateCollection and ChangeWithPrompt
    /// and print the error of `Prompt()`, or `done`; `unlock-with ID APP` unlocks collection ID together with the
    /// items whose `app` attribute is APP.
    static let program = """
        import sys, secretstorage
        from secretstorage.util import DBusAddressWrapper, exec_prompt
        from secretstorage.exceptions import SecretServiceNotAvailableException
        from jeepney.wrappers import DBusErrorResponse
        conn = secretstorage.dbus_init()
        role, name = sys.argv[1], sys.argv[2]
        base = '/org/freedesktop/secrets'
        try:
            if role == 'unlock':
                secretstorage.Collection(conn, base + '/collection/' + name).unlock()
            elif role == 'unlock-with':
                paths = [base + '/collection/' + name]
                paths += [item.item_path for item in secretstorage.search_items(conn, {'app': sys.argv[3]})]
                service = DBusAddressWrapper(base, 'org.freedesktop.Secret.Service', conn)
                (_, prompt) = service.call('Unlock', 'ao', paths)
                exec_prompt(conn, prompt)
            elif role == 'create':
                secretstorage.create_collection(conn, name)
            else:
                service = DBusAddressWrapper(base, 'org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface', conn)
                (prompt,) = service.call('ChangeWithPrompt', 'o', base + '/collection/' + name)
                exec_prompt(conn, prompt)
            print('done')
        except DBusErrorResponse as error:
            print(error.data[0])
        """

    @Test("unlocking a keychain other than the default, creating one and changing a password each name their command")
    func eachQuestionNamesItsCommand() async throws {
        try await TestBus.withPrivateBus { bus in
            let daemon = try await DaemonHarness.start(on: bus, options: FirstUseTests.fresh(["DISPLAY": ""]))
            let env = ClientEnvironment(bus: bus)
            let coffer = CofferCLI(bus: bus)
            let run: @Sendable ([String]) async throws -> String = { arguments in
                let output = try await env.run("/usr/bin/python3", ["-c", Self.program] + arguments)
                output.expectSuccess("python \(arguments)")
                return output.text.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            #expect(try await coffer.run(["unlock-keychain"], input: "login password\n").status == 0)
            #expect(try await coffer.run(["create-keychain", "work"], input: "work password\n").status == 0)
            #expect(try await coffer.run(["lock-keychain", "work"]).status == 0)

            let nowhere = "no display or terminal; run "
            #expect(try await run(["unlock", "work"])
                == "cannot ask for the password: \(nowhere)`coffer unlock-keychain work` or `coffer prompt-agent`")
            #expect(try await coffer.run(["unlock-keychain", "work"], input: "work password\n").status == 0)

            #expect(try await run(["create", "Tom's keys"]) == "cannot ask for the new keychain's password: \(nowhere)"
                + "`coffer create-keychain 'Tom'\\''s keys'` or `coffer prompt-agent`")
            #expect(try await coffer.run(["create-keychain", "Tom's keys"], input: "new\n").status == 0)

            #expect(try await run(["change", "work"])
                == "cannot ask for the passwords: \(nowhere)`coffer set-keychain-password work` or `coffer prompt-agent`")
            let change = try await coffer.run(["set-keychain-password", "work"],
                                              input: "work password\nnewer password\n")
            #expect(change.status == 0, "\(change.stderr)")
            #expect(try await coffer.run(["lock-keychain", "work"]).status == 0)
            #expect(try await coffer.run(["unlock-keychain", "work"], input: "newer password\n").status == 0)

            // The default keychain needs no name: the command the reason gives unlocks it as it is.
            #expect(try await coffer.run(["lock-keychain"]).status == 0)
            #expect(try await run(["unlock", "login"])
                == "cannot ask for the password: \(nowhere)`coffer unlock-keychain` or `coffer prompt-agent`")
            #expect(daemon.pinentryCommands.isEmpty, "a pinentry ran with nobody to see it")
            #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")
        }
    }

    @Test("a locked keychain unlocked together with another application's item is the one the reason names")
    func lockedKeychainBesideConsent() async throws {
        try await TestBus.withPrivateBus { bus in
            var options = FirstUseTests.fresh(["DISPLAY": ""])
            options.accessControl = "ask"
            let daemon = try await DaemonHarness.start(on: bus, options: options)
            let env = ClientEnvironment(bus: bus)
            let coffer = CofferCLI(bus: bus)
            #expect(try await coffer.run(["unlock-keychain"], input: "login password\n").status == 0)
            #expect(try await coffer.run(["create-keychain", "work"], input: "work password\n").status == 0)
            #expect(try await coffer.run(["lock-keychain", "work"]).status == 0)
            // secret-tool's item in login is another application's to python: it needs a consent, work a password.
            try await env.secretTool(["store", "--label", "other", "app", "other"], input: Data("s".utf8))
                .expectSuccess("secret-tool store")
            let output = try await env.run("/usr/bin/python3", ["-c", Self.program, "unlock-with", "work", "other"])
            output.expectSuccess("python unlock-with")
            #expect(output.text.trimmingCharacters(in: .whitespacesAndNewlines)
                == "cannot ask for the password: no display or terminal; run `coffer unlock-keychain work` or "
                + "`coffer prompt-agent`")
            #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")
        }
    }
}

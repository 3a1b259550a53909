// SPDX-License-Identifier: Apache-2.0
// The clients people use, reading an item another program created: each is asked about, and reads once allowed.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("Access control with real clients")
struct AccessControlClientsTests {
    /// A python program that stores one item with the attributes both secret-tool and python keyring look up by.
    static let storer = """
        import secretstorage
        conn = secretstorage.dbus_init()
        col = secretstorage.get_default_collection(conn)
        col.create_item('mail password', {'service': 'mail.example', 'username': 'ada'}, b'Xq7-owner-secret',
                        replace=True)
        print('stored')
        """

    /// python keyring reading the item by service and user name.
    static let keyringReader = """
        import keyring
        from keyring.backends import SecretService
        keyring.set_keyring(SecretService.Keyring())
        print(keyring.get_password('mail.example', 'ada'))
        """

    static func write(_ text: String, named name: String, in bus: TestBus) throws -> String {
        let directory = bus.directory.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = directory.appendingPathComponent("\(name).py")
        try Data(text.utf8).write(to: script)
        return script.path
    }

    @Test("secret-tool and python keyring reading another program's item are asked about it and, allowed once, read it; denied, they do not")
    func clientsAreAskedAndRead() async throws {
        // secret-tool: allow once; keyring: allow once; secret-tool again (a new process, so a new "once"): deny.
        try await AccessControlTests.withDaemon(confirms: ["OK", "OK", "CANCEL"]) { daemon, env in
            let bus = env.bus
            let stored = try await env.run("/usr/bin/python3", [try Self.write(Self.storer, named: "owner", in: bus)])
            stored.expectSuccess("store")
            #expect(stored.text == "stored\n")

            let lookup = try await env.secretTool(["lookup", "service", "mail.example", "username", "ada"])
            lookup.expectSuccess("secret-tool lookup")
            #expect(lookup.text == "Xq7-owner-secret")
            #expect(daemon.pinentryCommands.count { $0 == "CONFIRM" } == 1, "\(daemon.pinentryCommands)")

            let keyring = try await env.run("/usr/bin/python3",
                                            [try Self.write(Self.keyringReader, named: "reader", in: bus)])
            keyring.expectSuccess("keyring get_password")
            #expect(keyring.text == "Xq7-owner-secret\n")
            #expect(daemon.pinentryCommands.count { $0 == "CONFIRM" } == 2, "\(daemon.pinentryCommands)")

            let denied = try await env.secretTool(["lookup", "service", "mail.example", "username", "ada"])
            #expect(!denied.text.contains("Xq7-owner-secret"), "a denied lookup printed the secret")
            #expect(daemon.pinentryCommands.count { $0 == "CONFIRM" } == 3, "\(daemon.pinentryCommands)")
        }
    }

    @Test("with no display, clients asking for another program's item are told to run a prompt agent, in one line")
    func consentWithNoDisplay() async throws {
        try await TestBus.withPrivateBus { bus in
            var options = DaemonHarness.SubprocessOptions(environment: ["DISPLAY": ""])
            options.accessControl = "ask"
            let daemon = try await DaemonHarness.start(on: bus, options: options)
            let env = ClientEnvironment(bus: bus)
            let stored = try await env.run("/usr/bin/python3", [try Self.write(Self.storer, named: "owner", in: bus)])
            stored.expectSuccess("store")
            let lookup = try await env.secretTool(["lookup", "service", "mail.example", "username", "ada"])
            #expect(lookup.status != 0 && lookup.text.isEmpty)
            #expect(lookup.stderr.contains(PinentryText.consent), "secret-tool said: \(lookup.stderr)")

            // coffer's secret-tool verbs report the provider's reason; its security(1) verbs add it to Apple's text.
            let coffer = CofferCLI(bus: bus)
            let cofferLookup = try await coffer.run(["lookup", "service", "mail.example", "username", "ada"])
            #expect(cofferLookup.status == 128, "\(cofferLookup.stderr)")
            #expect(cofferLookup.stderr == "coffer: \(PinentryText.consent)\n")
            let find = try await coffer.run(["find-generic-password", "--include-foreign", "-s", "mail.example",
                                             "-a", "ada", "-w"])
            #expect(find.status == 36, "\(find.stderr)")
            #expect(find.stderr == "coffer: SecKeychainSearchCopyNext: User interaction is not allowed. "
                    + "(\(PinentryText.consent))\n")
            #expect(daemon.pinentryCommands.isEmpty, "a pinentry ran with nobody to see it")

            // Refused without a question, and logged as refused: once for each of the three clients above.
            let refusals = try await AccessManagementTests.log(coffer).filter { $0["outcome"] as? String == "refused" }
            let programs = refusals.compactMap { $0["application"] as? String }
            #expect(programs.count == 3 && programs.filter { $0.contains("/secret-tool@") }.count == 1
                    && programs.filter { $0.contains("/coffer@") }.count == 2, "\(refusals)")
            #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")
        }
    }

    /// The reason cofferd gives (docs/PROMPTS.md), spelled out here so a change of it is a visible change.
    enum PinentryText {
        static let consent = "cannot ask whether to allow this application: no display or terminal; "
            + "run `coffer prompt-agent` in a terminal, then try again"
    }
}

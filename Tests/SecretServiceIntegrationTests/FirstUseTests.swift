// SPDX-License-Identifier: Apache-2.0
// A fresh account: the first store into the default alias creates `login` through a password prompt, and a client
// with no way to be prompted is told why.

import DBusWire
import Foundation
import SecretCrypto
import SecretServiceProtocol
import SecretServiceClient
import SecretServiceTestSupport
import Testing

@Suite("First use in a fresh account", .timeLimit(.minutes(2)))
struct FirstUseTests {
    /// A fresh data directory: no `--unlock`, so no collection file and no default alias.
    static func fresh(_ environment: [String: String] = [:]) -> DaemonHarness.SubprocessOptions {
        .init(loginPassword: nil, environment: environment)
    }

    @Test("secret-tool store creates login with a new password from the pinentry, and lookup reads it back")
    func secretToolStore() async throws {
        try await TestBus.withPrivateBus { bus in
            let daemon = try await DaemonHarness.start(on: bus, options: Self.fresh())
            let env = ClientEnvironment(bus: bus)
            let store = try await env.secretTool(["store", "--label", "first", "app", "fresh"],
                                                 input: Data("first secret".utf8))
            store.expectSuccess("secret-tool store")
            let lookup = try await env.secretTool(["lookup", "app", "fresh"])
            lookup.expectSuccess("secret-tool lookup")
            #expect(lookup.text == "first secret")
            #expect(FileManager.default.fileExists(atPath: daemon.collectionFile("login").path))
            #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")
        }
    }

    /// What libsecret, python keyring and `coffer` are told when nobody can be asked.
    static let reason = "cannot ask for the password: no display or terminal"

    @Test("with no display and no terminal, secret-tool prints the reason and coffer status shows it")
    func noWayToAsk() async throws {
        try await TestBus.withPrivateBus { bus in
            let daemon = try await DaemonHarness.start(on: bus, options: Self.fresh(["DISPLAY": ""]))
            let env = ClientEnvironment(bus: bus)
            let store = try await env.secretTool(["store", "--label", "first", "app", "fresh"],
                                                 input: Data("first secret".utf8))
            #expect(store.status != 0)
            #expect(store.stderr.contains(Self.reason), "secret-tool said: \(store.stderr)")
            #expect(!FileManager.default.fileExists(atPath: daemon.collectionFile("login").path))
            #expect(daemon.pinentryCommands.isEmpty, "a pinentry ran with nobody to see it")

            let cofferStore = try await CofferCLI(bus: bus).run(["store", "--label", "first", "app", "fresh"],
                                                                input: "first secret")
            #expect(cofferStore.status != 0)
            #expect(cofferStore.stderr.contains(Self.reason), "coffer store said: \(cofferStore.stderr)")

            let status = try await CofferCLI(bus: bus).run(["status"])
            #expect(status.status == 0, "coffer status: \(status.stderr)")
            #expect(status.text.contains("last failed prompt:") && status.text.contains(Self.reason), "\(status.text)")
            #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")
        }
    }

    @Test("with no way to ask, `coffer unlock-keychain` (what the reason says to run) creates login as the default")
    func unlockKeychainCreatesLogin() async throws {
        try await TestBus.withPrivateBus { bus in
            let daemon = try await DaemonHarness.start(on: bus, options: Self.fresh(["DISPLAY": ""]))
            let env = ClientEnvironment(bus: bus)
            let refused = try await env.secretTool(["store", "--label", "first", "app", "fresh"],
                                                   input: Data("first secret".utf8))
            #expect(refused.stderr.contains("coffer unlock-keychain"), "secret-tool said: \(refused.stderr)")

            let coffer = CofferCLI(bus: bus)
            let (unlock, result) = try await coffer.json(["unlock-keychain"], input: "new login password\n")
            #expect(unlock.status == 0, "coffer unlock-keychain: \(unlock.stderr)")
            #expect(unlock.stderr == "coffer: created the keychain 'login', now the default\n")
            let login = "/org/freedesktop/secrets/collection/login"
            #expect(result as? [String: String] == ["created": login, "unlocked": login])
            #expect(try await coffer.run(["default-keychain"]).text == "    \"\(login)\"\n")

            // Now the store that was refused goes through without any prompt, and the password is the one typed.
            let store = try await env.secretTool(["store", "--label", "first", "app", "fresh"],
                                                 input: Data("first secret".utf8))
            store.expectSuccess("secret-tool store after unlock-keychain")
            #expect(try await env.secretTool(["lookup", "app", "fresh"]).text == "first secret")
            #expect(try await coffer.run(["lock-keychain"]).status == 0)
            #expect(try await coffer.run(["unlock-keychain"], input: "wrong\n").status == 51)
            #expect(try await coffer.run(["unlock-keychain"], input: "new login password\n").status == 0)
            #expect(daemon.pinentryCommands.isEmpty)
            #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")
        }
    }

    @Test("a login collection without the default alias becomes the default at `coffer unlock-keychain`")
    func unlockKeychainAdoptsLogin() async throws {
        try await TestBus.withPrivateBus { bus in
            let daemon = try await DaemonHarness.start(on: bus, options: Self.fresh(["DISPLAY": ""]))
            let coffer = CofferCLI(bus: bus)
            #expect(try await coffer.run(["create-keychain", "login"], input: "the password\n").status == 0)
            #expect(try await coffer.run(["default-keychain"]).status == 50)
            #expect(try await coffer.run(["lock-keychain", "login"]).status == 0)
            // The existing collection is unlocked with its own password, not replaced.
            #expect(try await coffer.run(["unlock-keychain"], input: "another\n").status == 51)
            let unlock = try await coffer.run(["unlock-keychain"], input: "the password\n")
            #expect(unlock.status == 0, "\(unlock.stderr)")
            #expect(unlock.stderr.isEmpty)
            #expect(try await coffer.run(["default-keychain"]).text
                    == "    \"/org/freedesktop/secrets/collection/login\"\n")
            #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")
        }
    }

    @Test("python keyring: set and get in a fresh account; with no way to ask, the error carries the reason")
    func pythonKeyring() async throws {
        let script = """
            import keyring
            from keyring.backends import SecretService
            keyring.set_keyring(SecretService.Keyring())
            try:
                keyring.set_password('svc', 'erin', 'fresh pass')
            except Exception as error:
                raise SystemExit('set failed: %s' % error)
            assert keyring.get_password('svc', 'erin') == 'fresh pass'
            print('ok')
            """
        try await TestBus.withPrivateBus { bus in
            let daemon = try await DaemonHarness.start(on: bus, options: Self.fresh())
            let result = try await ClientEnvironment(bus: bus).python(script)
            result.expectSuccess("keyring in a fresh account")
            #expect(result.text == "ok\n")
            #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")
        }
        try await TestBus.withPrivateBus { bus in
            let daemon = try await DaemonHarness.start(on: bus, options: Self.fresh(["DISPLAY": ""]))
            let result = try await ClientEnvironment(bus: bus).python(script)
            #expect(result.status != 0)
            #expect(result.stderr.contains(Self.reason), "python said: \(result.stderr)")
            #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")
        }
    }

    @Test("CreateItem on the default alias with no collection prompts for a new password and creates login")
    func createItemOnUnsetDefault() async throws {
        try await TestBus.withPrivateBus { bus in
            let daemon = try await DaemonHarness.start(on: bus, options: Self.fresh())
            let client = try await SecretService.connect(address: bus.address)
            let alias = ObjectPath(unchecked: "/org/freedesktop/secrets/aliases/default")
            // Nothing exists yet: reading the alias finds nothing, and its properties are no object.
            #expect(try await client.readAlias("default") == nil)
            await #expect(throws: SecretServiceError.self) { _ = try await client.collectionProperties(alias) }

            let item = try await client.createItem(in: alias, label: "first", attributes: ["app": "raw"],
                                                   secret: try SecretBytes(copying: Array("raw secret".utf8)),
                                                   replace: false)
            #expect(item.rawValue.hasPrefix("/org/freedesktop/secrets/collection/login/"))
            let login = ObjectPath(unchecked: "/org/freedesktop/secrets/collection/login")
            #expect(try await client.readAlias("default") == login)
            #expect(try await client.secret(of: item).text == "raw secret")
            // One pinentry: a new password, asked twice or with its repeat field.
            #expect(daemon.pinentryCommands.contains { $0.hasPrefix("GETPIN") })
            await client.close()
            #expect(FileManager.default.fileExists(atPath: daemon.collectionFile("login").path))
            #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")
        }
    }

    @Test("a prompt nobody can see: Prompt() fails with the reason first, then Completed(dismissed) follows")
    func refusedPromptOrder() async throws {
        try await TestBus.withPrivateBus { bus in
            let daemon = try await DaemonHarness.start(on: bus, options: Self.fresh(["DISPLAY": ""]))
            let client = try await SecretService.connect(address: bus.address)
            let (collection, prompt) = try await client.service.createCollection(
                properties: ["org.freedesktop.Secret.Collection.Label": .string("Work")], alias: "")
            #expect(collection == .root)
            let completions = try await client.subscribe(to: [.promptCompleted(prompt)])
            let proxy = PromptProxy(connection: client.connection, path: prompt)
            let error = await #expect(throws: SecretServiceError.self) { try await proxy.prompt() }
            guard case .failed(let message)? = error else {
                Issue.record("Prompt() failed with \(String(describing: error))")
                return
            }
            #expect(message.hasPrefix("cannot ask for the new keychain's password: no display or terminal"), "\(message)")
            let completed = try await withDeadline(waitingFor: "Completed after the refused Prompt()") {
                var iterator = completions.makeAsyncIterator()
                return await iterator.next()
            }
            #expect(completed?.body.first == .boolean(true))
            #expect(try await client.lastFailedPrompt()?.reason == message)
            await completions.cancel()
            await client.close()
            #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")
        }
    }
}

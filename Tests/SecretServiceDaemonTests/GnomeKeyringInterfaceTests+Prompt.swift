// SPDX-License-Identifier: Apache-2.0
// gnome-keyring's ChangeWithPrompt through the router, and the errors of the whole interface.

import DBusWire
import SecretCrypto
import SecretServiceDaemon
import SecretServiceProtocol
import SecretStore
import Testing

extension GnomeKeyringInterfaceTests {
    /// Runs `ChangeWithPrompt` on `collection` and returns the body of its `Completed` signal.
    func runChangePrompt(_ h: RouterHarness, _ collection: ObjectPath) async throws -> [DBusValue] {
        let reply = try await h.ok(service, gnomeInternal, "ChangeWithPrompt", [.objectPath(collection)])
        let prompt = try #require(reply.first?.objectPath)
        #expect(prompt.rawValue.hasPrefix("/org/freedesktop/secrets/prompt/"))
        _ = try await h.ok(prompt, nil, "Prompt", [.string("window:7")])
        let completed = await h.sender.waitForMessage { $0.member == "Completed" && $0.path == prompt }
        #expect(completed.destination == RouterHarness.first)
        return completed.body
    }

    func checks(_ h: RouterHarness, _ password: String) async throws -> Bool {
        try await h.store.checkPassword(of: "Vault", try SecretBytes(copying: Array(password.utf8)))
    }

    @Test("ChangeWithPrompt asks for the current password, then a new one, and completes with \"\"")
    func changeWithPrompt() async throws {
        let dir = try TemporaryDataDirectory()
        let prompter = ScriptedPasswordPrompter(answers: ["pw", "new"])
        let (h, _, vault) = try await vaultHarness(SecretServiceNames.plainAlgorithm, dir, prompter: prompter)
        #expect(try await runChangePrompt(h, vault) == [.boolean(false), .variant(.string(""))])
        #expect(try await checks(h, "new"))
        #expect(try await checks(h, "pw") == false)
        let asked = PasswordRequest(collectionLabel: "Vault", windowID: "window:7", caller: RouterHarness.first,
                                    isPasswordChange: true)
        #expect(prompter.questions == [.password(asked), .newPassword(asked)])
    }

    @Test("three wrong current passwords dismiss the change; so does dismissing the new password")
    func changeWithPromptDismissed() async throws {
        let dir = try TemporaryDataDirectory()
        let prompter = ScriptedPasswordPrompter(answers: ["a", "b", "c", "pw", nil])
        let (h, _, vault) = try await vaultHarness(SecretServiceNames.dhAlgorithm, dir, prompter: prompter)
        #expect(try await runChangePrompt(h, vault) == [.boolean(true), .variant(.string(""))])
        var asked = PasswordRequest(collectionLabel: "Vault", windowID: "window:7", caller: RouterHarness.first,
                                    isPasswordChange: true)
        var expected: [ScriptedPasswordPrompter.Question] = [.password(asked)]
        asked.errorText = "The current password was not correct. Please try again."
        for attempt in 2...3 {
            asked.attempt = attempt
            expected.append(.password(asked))
        }
        #expect(prompter.questions == expected)
        #expect(try await checks(h, "pw"))

        // The right current password, then a dismissed new one: still dismissed, nothing changed.
        #expect(try await runChangePrompt(h, vault).first == .boolean(true))
        #expect(prompter.questions.count == 5)
        #expect(try await checks(h, "pw"))
    }

    @Test("passwords in another client's session, or in no session, are NoSession before anything else")
    func foreignSession() async throws {
        let dir = try TemporaryDataDirectory()
        let (h, session, vault) = try await vaultHarness(SecretServiceNames.dhAlgorithm, dir)
        let theirs = try await ClientSessionKit.open(SecretServiceNames.plainAlgorithm, on: h,
                                                     for: RouterHarness.second)
        let noSession = "org.freedesktop.Secret.Error.NoSession"
        let unknown: ObjectPath = "/org/freedesktop/secrets/collection/unknown"
        for collection in [vault, unknown] {
            #expect(await h.errorName(service, gnomeInternal, "UnlockWithMasterPassword", [
                .objectPath(collection), try theirs.secret("pw"),
            ]) == noSession)
            #expect(await h.errorName(service, gnomeInternal, "ChangeWithMasterPassword", [
                .objectPath(collection), try session.secret("pw"), try theirs.secret("x"),
            ]) == noSession)
        }
        #expect(await h.errorName(service, gnomeInternal, "CreateWithMasterPassword", [
            .variantDictionary([:]), plainSecret(vault, "pw"),
        ]) == noSession)
        #expect(await h.store.collectionIDs() == ["Vault", "session"])
    }

    @Test("unknown collections are NoSuchObject; the in-memory session collection is NotSupported")
    func unsuitableCollections() async throws {
        let dir = try TemporaryDataDirectory()
        let (h, session, _) = try await vaultHarness(SecretServiceNames.plainAlgorithm, dir,
                                                     prompter: ScriptedPasswordPrompter(answers: []))
        let notSupported = "org.freedesktop.DBus.Error.NotSupported"
        let noSuchObject = "org.freedesktop.Secret.Error.NoSuchObject"
        let calls: [(MemberName, (ObjectPath) throws -> [DBusValue])] = [
            ("UnlockWithMasterPassword", { [.objectPath($0), try session.secret("pw")] }),
            ("ChangeWithMasterPassword", { [.objectPath($0), try session.secret("pw"), try session.secret("x")] }),
            ("ChangeWithPrompt", { [.objectPath($0)] }),
        ]
        for (member, arguments) in calls {
            #expect(await h.errorName(service, gnomeInternal, member,
                                      try arguments("/org/freedesktop/secrets/collection/unknown")) == noSuchObject)
            #expect(await h.errorName(service, gnomeInternal, member,
                                      try arguments("/org/freedesktop/secrets/aliases/x")) == noSuchObject)
            let memory = await h.call(service, gnomeInternal, member, try arguments(defaultAlias))
            #expect(memory.errorName?.rawValue == notSupported, "\(member)")
            #expect(memory.error?.message.contains("no password") == true)
        }
    }

    @Test("without a data directory or a password prompter, the calls that need them are NotSupported")
    func missingFacilities() async throws {
        let h = try await RouterHarness()
        let session = try await ClientSessionKit.open(SecretServiceNames.plainAlgorithm, on: h)
        #expect(await h.errorName(service, gnomeInternal, "CreateWithMasterPassword", [
            .variantDictionary([:]), try session.secret("pw"),
        ]) == "org.freedesktop.DBus.Error.NotSupported")
        #expect(await h.errorName(service, gnomeInternal, "CreateWithMasterPassword", [
            .variantDictionary([SecretPropertyKeys.collectionLabel: .int32(1)]), try session.secret("pw"),
        ]) == "org.freedesktop.DBus.Error.InvalidArgs")

        let dir = try TemporaryDataDirectory()
        let (fixed, _, vault) = try await vaultHarness(SecretServiceNames.plainAlgorithm, dir)
        #expect(await fixed.errorName(service, gnomeInternal, "ChangeWithPrompt", [.objectPath(vault)])
            == "org.freedesktop.DBus.Error.NotSupported")
    }
}

// SPDX-License-Identifier: Apache-2.0
// cofferd --unlock claims its name before the key derivation ends; calls that need `login` wait for the unlock.

import DBusWire
import Foundation
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

@Suite("Start-up unlock: the name at once, login calls wait for the key derivation", .timeLimit(.minutes(3)))
struct StartupUnlockTests {
    /// A key derivation slow enough (about two seconds on an idle 2-core machine) that the calls a test makes as
    /// soon as the name appears arrive while it runs, even under a sanitizer on a loaded machine, where starting a
    /// client takes a second or more. The collection keeps the cost it was created with, so the first start sets it.
    static let slowKeyDerivation = ["--kdf-iterations", "12", "--kdf-memory", "196608"]
    static let sessionPath = SecretObjectPath.collection(SecretServiceNames.sessionCollection).objectPath
    static let attributes = ["startup-unlock": "Qe71Lz"]

    static func options(_ name: String, password: String) -> DaemonHarness.SubprocessOptions {
        DaemonHarness.SubprocessOptions(arguments: slowKeyDerivation, loginPassword: password, name: name)
    }

    /// Creates `login` with the slow cost and one item in it, then stops.
    static func prepare(_ daemons: DaemonSequence) async throws -> ObjectPath {
        _ = try await daemons.start(options("create", password: DaemonHarness.testLoginPassword))
        let item = try await withClient(on: daemons.bus) { client in
            try await client.createItem(in: DaemonSequence.loginPath, label: "startup item", attributes: attributes,
                                        secret: secret("startup-secret-Vd83Pw"), replace: false)
        }
        await daemons.stop()
        return item
    }

    @Test("a lookup made as soon as the name appears waits for the unlock and gets the secret; the session collection answers meanwhile")
    func lookupWaitsForTheUnlock() async throws {
        try await withDaemonSequence { daemons in
            let item = try await Self.prepare(daemons)
            let daemon = try await daemons.start(Self.options("restart", password: DaemonHarness.testLoginPassword))
            try await withClient(on: daemons.bus) { client in
                // Another collection is served while the derivation runs: its answer comes before the unlock ends.
                #expect(try await !client.collectionProperties(Self.sessionPath).locked)
                #expect(!daemon.log().contains("unlocked the login collection"),
                        "a call on the session collection waited for login's unlock")

                let found = try await client.searchItems(Self.attributes)
                #expect(found.unlocked == [item] && found.locked.isEmpty, "\(found)")
                #expect(try await client.secret(of: item).text == "startup-secret-Vd83Pw")
            }
            let log = daemon.log()
            let serving = try #require(log.range(of: "serving org.freedesktop.secrets"), "\(log)")
            let unlocked = try #require(log.range(of: "unlocked the login collection"), "\(log)")
            #expect(serving.lowerBound < unlocked.lowerBound, "the name was claimed only after the unlock")
            #expect(log.contains("the call waited for the unlock in progress"), "\(log)")
            #expect(daemon.pinentryCommands.isEmpty, "a prompt was shown for the password given with --unlock")
            await daemons.stop()
        }
    }

    @Test("after a wrong password the waiting lookup finds login locked, as without the wait")
    func wrongPasswordEndsTheWaitLocked() async throws {
        try await withDaemonSequence { daemons in
            let item = try await Self.prepare(daemons)
            let daemon = try await daemons.start(Self.options("wrong", password: "not the login password"))
            try await withClient(on: daemons.bus) { client in
                let found = try await client.searchItems(Self.attributes)
                #expect(found.locked == [item] && found.unlocked.isEmpty, "\(found)")
                let refused = await #expect(throws: SecretServiceError.self) { try await client.secret(of: item) }
                #expect(errorName(refused) == SecretErrorNames.isLocked)
                #expect(try await client.collectionProperties(DaemonSequence.loginPath).locked)
            }
            let log = daemon.log()
            #expect(log.contains("does not unlock the login collection"), "\(log)")
            #expect(log.contains("the call waited for the unlock in progress"), "\(log)")
            #expect(daemon.pinentryCommands.isEmpty, "a prompt was shown during the start-up unlock")
            await daemons.stop()
        }
    }
}

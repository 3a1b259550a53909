// SPDX-License-Identifier: Apache-2.0
// cofferd --unlock claims its name before the unlock ends; calls that need `login` wait for it, others are answered.

import DBusWire
import Foundation
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

/// Each test holds the login password back in a pipe (as a login manager that writes it late would), so the calls
/// it makes meanwhile reach cofferd before the unlock can begin, whatever the machine's load: the order is made by
/// the test, never by a race against the key derivation.
@Suite("Start-up unlock: the name at once, login calls wait for the unlock", .timeLimit(.minutes(3)))
struct StartupUnlockTests {
    static let sessionPath = SecretObjectPath.collection(SecretServiceNames.sessionCollection).objectPath
    static let attributes = ["startup-unlock": "Qe71Lz"]

    /// Creates `login` with one item in it, then stops.
    static func prepare(_ daemons: DaemonSequence) async throws -> ObjectPath {
        _ = try await daemons.start(DaemonSequence.options("create"))
        let item = try await withClient(on: daemons.bus) { client in
            try await client.createItem(in: DaemonSequence.loginPath, label: "startup item", attributes: attributes,
                                        secret: secret("startup-secret-Vd83Pw"), replace: false)
        }
        await daemons.stop()
        return item
    }

    /// Starts cofferd with `--unlock` reading `password` from a pipe the test writes later.
    static func startHoldingPassword(_ daemons: DaemonSequence, _ name: String, password: String) async throws
        -> (DaemonHarness, Pipe) {
        let pipe = Pipe()
        var options = DaemonSequence.options(name, loginPassword: password)
        options.loginPasswordPipe = pipe
        return (try await daemons.start(options), pipe)
    }

    /// Sends SearchItems for the test item and returns once cofferd holds it back for the unlock.
    static func searchHeldBack(_ client: SecretService, by daemon: DaemonHarness) async throws
        -> Task<(unlocked: [ObjectPath], locked: [ObjectPath]), any Error> {
        let search = Task { try await client.searchItems(attributes) }
        try await daemon.waitForLog(containing: "the call waits for the unlock in progress")
        return search
    }

    static func write(_ password: String, to pipe: Pipe) throws {
        try pipe.fileHandleForWriting.write(contentsOf: Data(password.utf8))
        try pipe.fileHandleForWriting.close()
    }

    @Test("a lookup made before the password arrives waits for the unlock and gets the secret; the session collection answers meanwhile")
    func lookupWaitsForTheUnlock() async throws {
        try await withDaemonSequence { daemons in
            let item = try await Self.prepare(daemons)
            let (daemon, pipe) = try await Self.startHoldingPassword(daemons, "restart",
                                                                     password: DaemonHarness.testLoginPassword)
            try await withClient(on: daemons.bus) { client in
                // Another collection is served while login's unlock has not even begun.
                #expect(try await !client.collectionProperties(Self.sessionPath).locked)
                let search = try await Self.searchHeldBack(client, by: daemon)
                try Self.write(DaemonHarness.testLoginPassword, to: pipe)
                let found = try await search.value
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
            let (daemon, pipe) = try await Self.startHoldingPassword(daemons, "wrong",
                                                                     password: "not the login password")
            try await withClient(on: daemons.bus) { client in
                let search = try await Self.searchHeldBack(client, by: daemon)
                try Self.write("not the login password", to: pipe)
                let found = try await search.value
                #expect(found.locked == [item] && found.unlocked.isEmpty, "\(found)")
                let refused = await #expect(throws: SecretServiceError.self) { try await client.secret(of: item) }
                #expect(errorName(refused) == SecretErrorNames.isLocked)
                #expect(try await client.collectionProperties(DaemonSequence.loginPath).locked)
            }
            let log = daemon.log()
            #expect(log.contains("does not unlock the login collection"), "\(log)")
            #expect(daemon.pinentryCommands.isEmpty, "a prompt was shown during the start-up unlock")
            await daemons.stop()
        }
    }

    @Test("stopped before the password arrives, cofferd answers the held call, exits 0, and login stays as it was")
    func shutdownWithoutThePassword() async throws {
        try await withDaemonSequence { daemons in
            let item = try await Self.prepare(daemons)
            let before = try daemons.fileBytes("login")
            let (daemon, pipe) = try await Self.startHoldingPassword(daemons, "never",
                                                                     password: DaemonHarness.testLoginPassword)
            try await withClient(on: daemons.bus) { client in
                let search = try await Self.searchHeldBack(client, by: daemon)
                // SIGTERM while the password is still unwritten; `stop` expects exit status 0.
                await daemons.stop()
                let found = try await search.value
                #expect(found.locked == [item] && found.unlocked.isEmpty, "\(found)")
            }
            #expect(try daemons.fileBytes("login") == before)
            try pipe.fileHandleForWriting.close()
        }
    }

    @Test("a batch read of item properties made before the password arrives waits for the unlock, then sees the items")
    func batchReadWaitsForTheUnlock() async throws {
        try await withDaemonSequence { daemons in
            let item = try await Self.prepare(daemons)
            let (daemon, pipe) = try await Self.startHoldingPassword(daemons, "batch",
                                                                     password: DaemonHarness.testLoginPassword)
            try await withClient(on: daemons.bus) { client in
                // Two paths, so the client asks io.coffer.Items rather than one GetAll.
                let read = Task { await client.itemProperties(of: [item, item]) }
                try await daemon.waitForLog(containing: "the call waits for the unlock in progress")
                try Self.write(DaemonHarness.testLoginPassword, to: pipe)
                for outcome in await read.value {
                    let properties = try outcome.get()
                    #expect(!properties.locked && properties.label == "startup item", "\(properties)")
                }
                #expect(client.readsItemPropertiesInOneCall == true)
            }
            await daemons.stop()
        }
    }
}

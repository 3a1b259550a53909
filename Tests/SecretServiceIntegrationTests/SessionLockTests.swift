// SPDX-License-Identifier: Apache-2.0
// lock-on-sleep and lock-on-screen-lock: cofferd against a stand-in logind on a private "system" bus.

import DBusTransport
import DBusWire
import Foundation
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

@Suite("Locking on logind's sleep and screen-lock signals", .timeLimit(.minutes(2)))
struct SessionLockTests {
    static let sessionPath = ObjectPath(unchecked: "/org/freedesktop/login1/session/c7")

    @Test("PrepareForSleep(true) and the session's Lock lock the configured collections and no others")
    func sleepAndScreenLock() async throws {
        try await TestBus.withPrivateBus { systemBus in
            let logind = try await StandInLogind.start(on: systemBus, sessions: ["c7": Self.sessionPath])
            defer { Task { await logind.connection.close() } }
            try await TestBus.withPrivateBus { bus in
                // login locks on sleep only; the in-memory session collection (which [defaults] never reaches)
                // on screen lock only; `work` follows [defaults], which says neither.
                let config = bus.directory.appendingPathComponent("session-lock.conf")
                try Data("""
                    [defaults]
                    lock-on-sleep = no
                    [collection login]
                    lock-on-sleep = yes
                    [collection session]
                    lock-on-screen-lock = yes
                    """.utf8).write(to: config)
                let daemon = try await DaemonHarness.start(on: bus, options: .init(
                    arguments: ["--config", config.path] + DaemonHarness.cheapKeyDerivation,
                    environment: ["DBUS_SYSTEM_BUS_ADDRESS": systemBus.address, "XDG_SESSION_ID": "c7"]))
                let client = try await SecretService.connect(address: bus.address)
                do {
                    try await Self.exercise(client: client, logind: logind)
                    await client.close()
                } catch {
                    await client.close()
                    await daemon.kill()
                    throw error
                }
                let exit = await daemon.stop()
                #expect(exit == .exited(0), "cofferd \(exit); log:\n\(daemon.log())")
                #expect(daemon.log().contains("locked a collection on sleep"))
            }
        }
    }

    private static func exercise(client: SecretService, logind: StandInLogind) async throws {
        let login = SecretObjectPath.collection("login").objectPath
        let session = SecretObjectPath.collection("session").objectPath
        let work = try await client.createCollection(label: "Work")
        for path in [login, session, work] { #expect(try await client.collectionProperties(path).locked == false) }
        // cofferd asks logind for its session after subscribing, so once asked, it hears every signal.
        try await withDeadline(waitingFor: "cofferd to ask the stand-in logind for its session") {
            await logind.waitForCall("GetSession")
        }
        let changes = try await client.subscribe(to: [
            SignalFilter(path: .init(unchecked: SecretServiceNames.servicePath.rawValue),
                         interface: SecretServiceNames.serviceInterface, member: "CollectionChanged")])

        // A resume (`false`) locks nothing; the sleep after it locks login.
        try await logind.emit(path: StandInLogind.managerPath, interface: StandInLogind.managerInterface,
                              member: "PrepareForSleep", body: [.boolean(false)])
        try await logind.emit(path: StandInLogind.managerPath, interface: StandInLogind.managerInterface,
                              member: "PrepareForSleep", body: [.boolean(true)])
        #expect(try await nextChange(in: changes) == login)
        #expect(try await client.collectionProperties(login).locked)
        #expect(try await client.collectionProperties(work).locked == false)
        #expect(try await client.collectionProperties(session).locked == false)

        // Another session's Lock is not ours; our session's locks the session collection.
        try await logind.emit(path: .init(unchecked: "/org/freedesktop/login1/session/c8"),
                              interface: StandInLogind.sessionInterface, member: "Lock")
        try await logind.emit(path: sessionPath, interface: StandInLogind.sessionInterface, member: "Lock")
        #expect(try await nextChange(in: changes) == session)
        #expect(try await client.collectionProperties(session).locked)
        #expect(try await client.collectionProperties(work).locked == false)
        await changes.cancel()
    }

    /// The collection named by the next `CollectionChanged`.
    private static func nextChange(in changes: SignalSubscription) async throws -> ObjectPath? {
        try await withDeadline(waitingFor: "CollectionChanged") {
            var iterator = changes.makeAsyncIterator()
            return await iterator.next()?.body.first?.objectPath
        }
    }

    @Test("outside any session (started by the user's service manager), the user's graphical session's Lock counts")
    func graphicalSessionFallback() async throws {
        let display = ObjectPath(unchecked: "/org/freedesktop/login1/session/c9")
        try await TestBus.withPrivateBus { systemBus in
            // No XDG_SESSION_ID and no session for cofferd's pid: only the user's Display session is left.
            let logind = try await StandInLogind.start(on: systemBus, sessions: [:], display: ("c9", display))
            defer { Task { await logind.connection.close() } }
            try await TestBus.withPrivateBus { bus in
                let config = bus.directory.appendingPathComponent("session-lock.conf")
                try Data("[collection login]\nlock-on-screen-lock = yes\n".utf8).write(to: config)
                let daemon = try await DaemonHarness.start(on: bus, options: .init(
                    arguments: ["--config", config.path],
                    environment: ["DBUS_SYSTEM_BUS_ADDRESS": systemBus.address]))
                let client = try await SecretService.connect(address: bus.address)
                let login = SecretObjectPath.collection("login").objectPath
                #expect(try await client.collectionProperties(login).locked == false)
                try await withDeadline(waitingFor: "cofferd to read the user's Display session") {
                    await logind.waitForCall("Get")
                }
                let changes = try await client.subscribe(to: [.propertiesChanged(login)])
                try await logind.emit(path: display, interface: StandInLogind.sessionInterface, member: "Lock")
                _ = try await withDeadline(waitingFor: "login's PropertiesChanged") {
                    var iterator = changes.makeAsyncIterator()
                    return await iterator.next()
                }
                #expect(try await client.collectionProperties(login).locked)
                await changes.cancel()
                await client.close()
                #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")
            }
        }
    }

    @Test("with lock-on-sleep set and no system bus, cofferd serves and logs why nothing will lock")
    func noSystemBus() async throws {
        try await TestBus.withPrivateBus { bus in
            let config = bus.directory.appendingPathComponent("session-lock.conf")
            try Data("[defaults]\nlock-on-sleep = yes\n".utf8).write(to: config)
            let missing = bus.directory.appendingPathComponent("no-such-socket").path
            let daemon = try await DaemonHarness.start(on: bus, options: .init(
                arguments: ["--config", config.path],
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(missing)"]))
            let client = try await SecretService.connect(address: bus.address)
            #expect(try await client.collectionProperties(try await client.defaultCollection()).locked == false)
            await client.close()
            // The log line is the only trace a missing system bus leaves, and it is written by a background task
            // that no call waits for; so the log is read until it appears.
            try await withDeadline(waitingFor: "the no-system-bus line in cofferd's log") {
                while !daemon.log().contains("no system bus; lock-on-sleep and lock-on-screen-lock have no effect") {
                    await Task.yield()
                }
            }
            #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// End to end with a real sync engine: two cofferd instances whose folders two syncthing instances keep in step.

import CollectionSync
import Foundation
import SecretServiceTestSupport
import Testing

/// Extra rounds of changes in each direction, for a longer run by hand (docs/SYNC.md): `COFFER_SYNCTHING_SOAK`.
let syncthingSoakRounds = ProcessInfo.processInfo.environment["COFFER_SYNCTHING_SOAK"].flatMap(Int.init) ?? 0

@Suite("Synchronized collections through Syncthing",
       .timeLimit(syncthingSoakRounds > 0 ? .minutes(120) : .minutes(3)))
struct SyncthingTests {
    /// One machine: a private bus, its cofferd, its sync folder and its syncthing.
    struct Machine {
        let bus: TestBus
        let daemon: DaemonHarness
        let syncthing: SyncthingInstance
        let folder: String
        var clients: ClientEnvironment { ClientEnvironment(bus: bus) }
        var coffer: CofferCLI { CofferCLI(bus: bus) }

        func lookup(_ user: String) async throws -> String {
            try await clients.secretTool(["lookup", "service", "imap", "user", user]).text
        }
    }

    @Test("a secret stored with secret-tool on one machine is returned by secret-tool on the other; a change and a delete go back")
    func throughSyncthing() async throws {
        try await TestBus.withPrivateBus { firstBus in
            try await TestBus.withPrivateBus { secondBus in
                try await Self.run(firstBus, secondBus)
            }
        }
    }

    static func run(_ firstBus: TestBus, _ secondBus: TestBus) async throws {
        let options = DaemonHarness.SubprocessOptions(arguments: DaemonHarness.cheapKeyDerivation)
        var started: [Machine] = []
        var syncthings: [SyncthingInstance] = []
        do {
            for bus in [firstBus, secondBus] {
                let folder = bus.directory.appendingPathComponent("Sync").path
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                let home = bus.directory.appendingPathComponent("syncthing").path
                let syncthing = try await SyncthingInstance(home: home)
                syncthings.append(syncthing)
                started.append(Machine(bus: bus, daemon: try await DaemonHarness.start(on: bus, options: options),
                                       syncthing: syncthing, folder: folder))
            }
            let (first, second) = (started[0], started[1])
            try first.syncthing.configure(peer: second.syncthing, folder: first.folder)
            try second.syncthing.configure(peer: first.syncthing, folder: second.folder)
            // The first listens before the second starts, so the second's first dial connects.
            try await first.syncthing.start()
            try await second.syncthing.start()
            try await exchange(first, second)
        } catch {
            for machine in started {
                Issue.record("cofferd's log:\n\(machine.daemon.log())\nsyncthing's log:\n\(machine.syncthing.log())")
                await machine.daemon.kill()
            }
            for syncthing in syncthings { await syncthing.kill() }
            throw error
        }
        for machine in started {
            #expect(await machine.daemon.stop() == .exited(0), "log:\n\(machine.daemon.log())")
        }
        for syncthing in syncthings { await syncthing.kill() }
    }

    static func exchange(_ first: Machine, _ second: Machine) async throws {
        let password = DaemonHarness.testLoginPassword + "\n"
        let (enabled, enabledJSON) = try await first.coffer.json(
            ["sync", "enable", "--collection", "login", first.folder, "--json"], input: password)
        #expect(enabled.status == 0, "\(enabled.stderr)")
        let ids = try #require(enabledJSON as? [String: String])
        let collection = try #require(ids["collection"]), firstDevice = try #require(ids["device"])
        let stored = try await first.clients.secretTool(["store", "--label=Mail", "service", "imap", "user", "alice"],
                                                        input: Data("hunter2".utf8))
        #expect(stored.status == 0, "\(stored.stderr)")

        // Joining needs the wrap and the journal on the second machine: Syncthing brings them.
        try await arrived(firstDevice, of: collection, from: first, at: second, wrap: true)
        let (joined, joinedJSON) = try await second.coffer.json(
            ["sync", "join", second.folder, "--label", "Shared", "--json"], input: password)
        #expect(joined.status == 0, "\(joined.stderr)")
        let secondDevice = try #require((joinedJSON as? [String: String])?["device"])
        let keychain = try #require((joinedJSON as? [String: String])?["keychain"])
        let shared = "/org/freedesktop/secrets/collection/" + keychain
        #expect(try await second.lookup("alice") == "hunter2")

        // Once joined, changes travel while both cofferds run: a new secret on the first machine…
        #expect(try await first.clients.secretTool(["store", "--label=Later", "service", "imap", "user", "bob"],
                                                   input: Data("b0b-s3cret".utf8)).status == 0)
        try await merged(firstDevice, of: collection, from: first, into: second)
        #expect(try await second.lookup("bob") == "b0b-s3cret")

        // …a change and a delete on the second.
        let changed = try await second.clients.secretTool(
            ["store", "--label=Mail", "--collection=\(shared)", "service", "imap", "user", "alice"],
            input: Data("hunter3".utf8))
        #expect(changed.status == 0, "\(changed.stderr)")
        try await merged(secondDevice, of: collection, from: second, into: first)
        #expect(try await first.lookup("alice") == "hunter3")
        #expect(try await second.clients.secretTool(["clear", "service", "imap", "user", "bob"]).status == 0)
        try await merged(secondDevice, of: collection, from: second, into: first)
        #expect(try await first.lookup("bob") == "")

        for round in 0..<syncthingSoakRounds {
            let (writer, reader, device) = round % 2 == 0 ? (first, second, firstDevice) : (second, first, secondDevice)
            let value = "soak-\(round)-value"
            let into = round % 2 == 0 ? [] : ["--collection=\(shared)"]  // the first's default is login
            #expect(try await writer.clients.secretTool(
                ["store", "--label=Soak"] + into + ["service", "imap", "user", "soak"],
                input: Data(value.utf8)).status == 0)
            try await merged(device, of: collection, from: writer, into: reader)
            #expect(try await reader.lookup("soak") == value, "round \(round)")
        }
        #expect(!first.daemon.log().contains("set aside") && !second.daemon.log().contains("set aside"),
                "Syncthing's temporary files and renames are no damage")
    }

    /// Returns once `device`'s journal (and with `wrap`, its wrap) in `target`'s folder holds exactly what it holds
    /// in `source`'s, waking on each batch of the receiving syncthing's events.
    static func arrived(_ device: String, of collection: String, from source: Machine, at target: Machine,
                        wrap: Bool = false) async throws {
        let names = [device + ".journal"] + (wrap ? [device + ".wrap"] : [])
        let from = source.folder + "/" + collection, to = target.folder + "/" + collection
        try await target.syncthing.wait(until: {
            try names.allSatisfy { name in
                let wanted = try Data(contentsOf: URL(fileURLWithPath: from + "/" + name))
                return (try? Data(contentsOf: URL(fileURLWithPath: to + "/" + name))) == wanted
            }
        }, what: "\(names) carried by syncthing")
    }

    /// Returns once `target`'s cofferd has merged every record of `device`'s journal as `source` wrote it: the
    /// journal arrived whole, and the log line of its merge (through its last record) was written.
    static func merged(_ device: String, of collection: String, from source: Machine, into target: Machine)
        async throws {
        try await arrived(device, of: collection, from: source, at: target)
        var reader = try SyncEnableTests.Reader(root: source.folder, collection: collection, device: device)
        try reader.catchUp()
        let last = try #require(reader.follower.checkpoint?.lastSequence)
        try await target.daemon.waitForLog(containing: "sync.device=\(device) sync.through=\(last) ")
    }
}

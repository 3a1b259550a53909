// SPDX-License-Identifier: Apache-2.0
// A crash during a password change that re-keys a synchronized collection: at each point where cofferd can stop,
// the data directory it leaves is rebuilt from the files of real runs before and after the change, and a cofferd
// started on it must unlock, open the sync state, take changes into the journal and merge others' journals.

import CollectionSync
import Foundation
import SecretCrypto
import SecretServiceTestSupport
import Testing

@Suite("Synchronized collections: a crash while a password change re-keys the collection", .timeLimit(.minutes(3)))
struct SyncRekeyCrashTests {
    static let oldPassword = DaemonHarness.testLoginPassword
    static let newPassword = "the new login password"

    /// The files a crash leaves in the data directory, and what must hold once cofferd opened them.
    struct CrashPoint: CustomStringConvertible, Sendable {
        let description: String
        /// The data directory before the change (`false`) or after it (`true`).
        let replaced: Bool
        /// What `sync/login.state` holds: the state from before the change or from after it.
        let stateAfter: Bool
        /// What `sync/login.state.next` holds: the state from after the change, whole or cut short.
        let next: @Sendable (Data) -> Data
        /// Left beside the old collection file: the new one written but not renamed over it yet.
        let newFileBeside: Bool

        var password: String { replaced ? SyncRekeyCrashTests.newPassword : SyncRekeyCrashTests.oldPassword }
    }

    static let crashPoints = [
        CrashPoint(description: "while the state for the new keys is written", replaced: false, stateAfter: false,
                   next: { $0.prefix($0.count / 2) }, newFileBeside: false),
        CrashPoint(description: "after the state for the new keys is written, before the new collection file is",
                   replaced: false, stateAfter: false, next: { $0 }, newFileBeside: true),
        CrashPoint(description: "after the new collection file is in place, before the state for the new keys is",
                   replaced: true, stateAfter: false, next: { $0 }, newFileBeside: false),
    ]

    static func copy(_ from: URL, to: URL) throws {
        try? FileManager.default.removeItem(at: to)
        try FileManager.default.copyItem(at: from, to: to)
    }

    @Test("at every point a crash can stop a re-key of a synchronized collection, cofferd unlocks with the password the collection file holds, keeps every item, and syncs on both ways with no prepared state left behind")
    func crashDuringRekey() async throws {
        try await TestBus.withPrivateBus { bus in
            let options = DaemonHarness.SubprocessOptions(arguments: DaemonHarness.cheapKeyDerivation)
            var daemon = try await DaemonHarness.start(on: bus, options: options)
            let folder = bus.directory.appendingPathComponent("Sync").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let coffer = CofferCLI(bus: bus), clients = ClientEnvironment(bus: bus)
            let data = daemon.dataDirectory
            let state = data.appendingPathComponent("sync/login.state")
            let next = data.appendingPathComponent("sync/login.state.next")
            let snapshots = bus.directory.appendingPathComponent("snapshots")
            try FileManager.default.createDirectory(at: snapshots, withIntermediateDirectories: true)
            do {
                let (enabled, enabledJSON) = try await coffer.json(
                    ["sync", "enable", "--collection", "login", folder, "--json"], input: Self.oldPassword + "\n")
                #expect(enabled.status == 0, "\(enabled.stderr)")
                let place = SyncFolder(root: folder, collection: try #require(SyncIdentifier(
                    hex: (enabledJSON as? [String: String])?["collection"] ?? "")))
                let master = try place.unlock(password: try SecretBytes(copying: Array(Self.oldPassword.utf8)))
                let keys = try SyncKeys(masterKey: master, collection: place.collection)
                #expect(try await clients.secretTool(["store", "--label=Before", "service", "imap", "user", "before"],
                                                     input: Data("b3fore".utf8)).status == 0)

                // The files before the change, and after a change that ran to its end.
                #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")
                let before = snapshots.appendingPathComponent("before")
                let after = snapshots.appendingPathComponent("after")
                let folderBefore = snapshots.appendingPathComponent("folder")
                try Self.copy(data, to: before)
                try Self.copy(URL(fileURLWithPath: folder), to: folderBefore)
                daemon = try await DaemonHarness.start(on: bus, options: options)
                let changed = try await coffer.run(["set-keychain-password", "login"],
                                                   input: Self.oldPassword + "\n" + Self.newPassword + "\n")
                #expect(changed.status == 0, "\(changed.stderr)")
                #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")
                try Self.copy(data, to: after)
                #expect(!FileManager.default.fileExists(atPath: next.path), "a re-key leaves no prepared state")
                let stateBefore = try Data(contentsOf: before.appendingPathComponent("sync/login.state"))
                let stateAfter = try Data(contentsOf: after.appendingPathComponent("sync/login.state"))
                try #require(stateBefore != stateAfter, "the password change re-keyed the collection")

                for (round, point) in Self.crashPoints.enumerated() {
                    print("rekey crash: \(point)")
                    let comment = Comment(rawValue: "crash \(point)")
                    try Self.copy(point.replaced ? after : before, to: data)
                    try Self.copy(folderBefore, to: URL(fileURLWithPath: folder))  // the wrap follows only later
                    try (point.stateAfter ? stateAfter : stateBefore).write(to: state)
                    try point.next(stateAfter).write(to: next)
                    if point.newFileBeside {
                        try Self.copy(after.appendingPathComponent("login.coffer"),
                                      to: data.appendingPathComponent("login.coffer.tmp"))
                    }
                    daemon = try await DaemonHarness.start(on: bus, options: DaemonHarness.SubprocessOptions(
                        arguments: DaemonHarness.cheapKeyDerivation, loginPassword: point.password))

                    // Every item is there, and a change goes into the journal the other devices read.
                    let found = try await clients.secretTool(["lookup", "service", "imap", "user", "before"])
                    #expect(String(decoding: found.stdout, as: UTF8.self) == "b3fore", comment)
                    let label = "After \(round)"
                    let stored = try await clients.secretTool(["store", "--label=\(label)", "service", "imap", "user",
                                                               "after"], input: Data("4fter".utf8))
                    #expect(stored.status == 0, "\(comment): \(stored.stderr)")
                    let verified = try place.verify(keys: keys)
                    #expect(verified.devices.allSatisfy { $0.damage == nil }, comment)
                    #expect(verified.merged.items.values.contains { $0.label == label }, comment)
                    #expect(verified.merged.items.values.contains { $0.label == "Before" }, comment)

                    // The state that opens with the collection file is in place, and nothing prepared is left.
                    #expect(try Data(contentsOf: state) == (point.replaced ? stateAfter : stateBefore), comment)
                    #expect(!FileManager.default.fileExists(atPath: next.path), comment)

                    // Another device's change arrives and is merged.
                    let staging = bus.directory.appendingPathComponent("staging\(round)").path
                    let other = try SyncKillTests.deliverBatch(1, into: place, keys: keys, staging: staging)
                    try await daemon.waitForLog(containing: "sync.device=\(other) sync.through=1", limit: .seconds(20))
                    let merged = try await clients.secretTool(["lookup", "service", "batch", "n", "0"])
                    #expect(String(decoding: merged.stdout, as: UTF8.self) == "s0", comment)
                    #expect(!daemon.log().contains("could not be opened"), "\(comment), log:\n\(daemon.log())")

                    // A later run finds nothing to trip over.
                    #expect(await daemon.stop() == .exited(0), "\(comment), log:\n\(daemon.log())")
                    daemon = try await DaemonHarness.start(on: bus, options: DaemonHarness.SubprocessOptions(
                        arguments: DaemonHarness.cheapKeyDerivation, loginPassword: point.password))
                    let again = try await clients.secretTool(["store", "--label=Again \(round)", "service", "imap",
                                                              "user", "again"], input: Data("ag4in".utf8))
                    #expect(again.status == 0, "\(comment): \(again.stderr)")
                    #expect(try place.verify(keys: keys).merged.items.values.contains { $0.label == "Again \(round)" },
                            comment)
                    #expect(!daemon.log().contains("could not be opened") && !daemon.log().contains("sync state"),
                            "\(comment), log:\n\(daemon.log())")
                    #expect(await daemon.stop() == .exited(0), "\(comment), log:\n\(daemon.log())")
                }
            } catch {
                Issue.record("cofferd's log:\n\(daemon.log())")
                await daemon.kill()
                throw error
            }
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// cofferd killed with SIGKILL while it merges a large batch from another device, and while it compacts its journal:
// nothing acknowledged is lost, and the collection file and the journals open again.

import CollectionSync
import Foundation
import SecretCrypto
import SecretServiceTestSupport
import Testing

@Suite("Synchronized collections: SIGKILL during a merge and during a compaction", .timeLimit(.minutes(3)))
struct SyncKillTests {
    static let batch = 1500

    /// Another device's journal of `count` new items, written beside the folder and renamed into it whole, as an
    /// engine delivers it.
    static func deliverBatch(_ count: Int, into place: SyncFolder, keys: SyncKeys, staging: String) throws -> DeviceID {
        let device = DeviceID.random()
        let aside = SyncFolder(root: staging, collection: place.collection)
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        let writer = try JournalWriter.open(folder: aside, device: device, keys: keys).writer
        for index in 0..<count {
            let content = SyncItemContent(label: "batch \(index)", attributes: ["service": "batch", "n": "\(index)"],
                                          contentType: "text/plain",
                                          secret: try SecretBytes(copying: Array("s\(index)".utf8)),
                                          created: 1, modified: 1)
            close(try writer.appendUnsynced(.put(SyncItemID.random(), content)).descriptor)
        }
        let temporary = place.directory + "/.syncthing.batch.tmp"
        try FileManager.default.copyItem(atPath: aside.journalPath(for: device), toPath: temporary)
        #expect(rename(temporary, place.journalPath(for: device)) == 0)
        return device
    }

    static func items(_ coffer: CofferCLI) async throws -> Int? {
        try await keychains(coffer)["login"]?["items"] as? Int
    }

    @Test("killed while merging another device's batch, and while compacting its own journal, cofferd reopens with every acknowledged change and finishes the merge")
    func killDuringMergeAndCompaction() async throws {
        try await TestBus.withPrivateBus { bus in
            let options = DaemonHarness.SubprocessOptions(arguments: DaemonHarness.cheapKeyDerivation)
            var daemon = try await DaemonHarness.start(on: bus, options: options)
            let folder = bus.directory.appendingPathComponent("Sync").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let coffer = CofferCLI(bus: bus), clients = ClientEnvironment(bus: bus)
            let password = DaemonHarness.testLoginPassword
            do {
                let (enabled, enabledJSON) = try await coffer.json(
                    ["sync", "enable", "--collection", "login", folder, "--json"], input: password + "\n")
                #expect(enabled.status == 0, "\(enabled.stderr)")
                let place = SyncFolder(root: folder, collection: try #require(SyncIdentifier(
                    hex: (enabledJSON as? [String: String])?["collection"] ?? "")))
                let own = try #require(SyncIdentifier(hex: (enabledJSON as? [String: String])?["device"] ?? ""))
                let master = try place.unlock(password: try SecretBytes(copying: Array(password.utf8)))
                let keys = try SyncKeys(masterKey: master, collection: place.collection)
                #expect(try await clients.secretTool(["store", "--label=Mine", "service", "imap", "user", "mine"],
                                                     input: Data("m1ne".utf8)).status == 0)

                // SIGKILL as soon as cofferd starts merging the batch.
                let other = try Self.deliverBatch(Self.batch, into: place, keys: keys,
                                             staging: bus.directory.appendingPathComponent("staging").path)
                try await daemon.waitForLog(containing: "sync.device=\(other) sync.through=\(Self.batch)")
                #expect(await daemon.kill() != .exited(0))
                // Whether the kill came before the merge was done (its followers state not yet saved): reported,
                // as the moment is the scheduler's.
                let followers = daemon.dataDirectory.appendingPathComponent("sync/login.followers").path
                let saved = (try? Data(contentsOf: URL(fileURLWithPath: followers)))?.count ?? 0
                print("sync kill: followers state of \(saved) bytes at the kill during the merge "
                      + "(12: nothing of the batch merged yet)")
                daemon = try await DaemonHarness.start(on: bus, options: options)
                #expect(try await Self.items(coffer) == Self.batch + 1, "log:\n\(daemon.log())")
                let mine = try await clients.secretTool(["lookup", "service", "imap", "user", "mine"])
                #expect(String(decoding: mine.stdout, as: UTF8.self) == "m1ne")
                #expect(!daemon.log().contains("set aside") && !daemon.log().contains("could not be opened"))

                // This device's journal, grown while cofferd was stopped by many changes of one item, so the next
                // change compacts it; SIGKILL as soon as the compaction starts.
                _ = await daemon.stop()
                let writer = try JournalWriter.open(folder: place, device: own, keys: keys).writer
                let churn = SyncItemID.random()
                for round in 0..<600 {
                    let content = SyncItemContent(label: "churn", attributes: [:], contentType: "text/plain",
                                                  secret: try SecretBytes(copying: Array("c\(round)".utf8)),
                                                  created: 1, modified: 1)
                    close(try writer.appendUnsynced(.put(churn, content)).descriptor)
                }
                _ = try writer.append(.deviceName("churned"))
                daemon = try await DaemonHarness.start(on: bus, options: options)
                let stored = Task {
                    try await clients.secretTool(["store", "--label=Late", "service", "imap", "user", "late"],
                                                 input: Data("l4te".utf8))
                }
                try await daemon.waitForLog(containing: "compacting the sync journal")
                #expect(await daemon.kill() != .exited(0))
                _ = try? await stored.value
                let atKill = try place.verify(keys: keys).devices.first { $0.device == own }
                #expect(atKill?.damage == nil)
                print("sync kill: own journal at compaction \(atKill?.checkpoint?.compaction ?? 0) at the kill during "
                      + "the compaction (0: before the rename)")
                daemon = try await DaemonHarness.start(on: bus, options: options)
                let count = try await Self.items(coffer)
                // The store in flight is all or nothing; everything acknowledged before is there.
                #expect(count == Self.batch + 1 || count == Self.batch + 2, "log:\n\(daemon.log())")
                let mineAgain = try await clients.secretTool(["lookup", "service", "imap", "user", "mine"])
                #expect(String(decoding: mineAgain.stdout, as: UTF8.self) == "m1ne")
                #expect(!daemon.log().contains("could not be opened"), "log:\n\(daemon.log())")
                // The journal opens and takes changes again, and compacts (anew, or it was already done).
                let after = try await clients.secretTool(["store", "--label=After", "service", "imap", "user",
                                                          "after"], input: Data("4fter".utf8))
                #expect(after.status == 0, "\(after.stderr)")
                let verified = try place.verify(keys: keys)
                #expect(verified.devices.allSatisfy { $0.damage == nil })
                #expect(verified.devices.first { $0.device == own }?.checkpoint?.compaction ?? 0 >= 1)
                #expect(verified.merged.items.count == Self.batch + 1 + (count == Self.batch + 2 ? 1 : 0) + 1)
            } catch {
                Issue.record("cofferd's log:\n\(daemon.log())")
                await daemon.kill()
                throw error
            }
            #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")
        }
    }
}

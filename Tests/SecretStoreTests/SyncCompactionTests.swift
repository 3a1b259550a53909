// SPDX-License-Identifier: Apache-2.0
// A synchronized collection's journal compacted by the store, and another machine following it across the compaction.

@testable import CollectionSync
import Foundation
import SecretCrypto
import SecretServiceProtocol
@testable import SecretStore
import Testing

extension SecretStore {
    /// The compaction number of the collection's own journal and how many records it holds now.
    func ownJournal(of id: String) -> (compaction: UInt64, records: UInt64)? {
        syncLinks[id].map { ($0.writer.header.compaction, $0.writer.nextSequence - $0.writer.header.firstSequence) }
    }

    func setSyncCompactionMinimum(_ minimum: Int) {
        syncCompactionMinimum = minimum
    }
}

@Suite("Synchronized collections: compacting this device's journal")
struct SyncCompactionTests {
    @Test("superseded records outnumbering live ones make a snapshot; the other machine converges, also from a follower state saved before the compaction; a compaction that numbers from an acknowledged record again is set aside")
    func compactionAndFollowers() async throws {
        var machines = try TwoMachines()
        defer { machines.cleanUp() }
        let first = try await machines.first.store()
        await first.setSyncCompactionMinimum(16)
        _ = try await first.createCollection(label: "Login", alias: "", password: password("pw"), preferredID: "login")
        let (a, _) = try await first.createItem(in: "login", label: "a", attributes: ["k": "a"], secret: secret("a"),
                                                replace: false)
        let (b, _) = try await first.createItem(in: "login", label: "b", attributes: ["k": "b"], secret: secret("b"),
                                                replace: false)
        let enabled = try await first.enableSync(of: "login", password: password("pw"), folder: machines.firstFolder)
        machines.firstDevices = [enabled.device]
        try machines.carry(machines.firstFolder, to: machines.secondFolder)
        let second = try await machines.second.store()
        let (shared, joined) = try await second.joinSync(folder: machines.secondFolder, collection: nil,
                                                         password: password("pw"), label: "Shared")
        machines.secondDevices = [joined.device]
        #expect(try await SyncMergeTests.labels(second, shared) == ["a": "a", "b": "b"])

        // Below the minimum nothing is compacted, however much is superseded.
        for round in 0..<10 { try await first.setSecret(collection: "login", item: a, to: secret("a\(round)")) }
        #expect(await first.ownJournal(of: "login")?.compaction == 0)
        for round in 10..<40 { try await first.setSecret(collection: "login", item: a, to: secret("a\(round)")) }
        let compacted = try #require(await first.ownJournal(of: "login"))
        #expect(compacted.compaction >= 1 && compacted.records < 16, "\(compacted)")

        // The second machine saved its follower state before the compaction; restarted, it takes the compacted
        // journal as the next one and ends where the first machine is.
        try machines.carry(machines.firstFolder, to: machines.secondFolder)
        let restarted = try await machines.second.store()
        #expect(try await restarted.unlock(shared, password: password("pw")))
        #expect(try await SyncMergeTests.labels(restarted, shared) == ["a": "a39", "b": "b"])
        #expect(await restarted.setAsideJournals(of: shared).isEmpty)
        try await first.setSecret(collection: "login", item: b, to: secret("b2"))
        try machines.carry(machines.firstFolder, to: machines.secondFolder)
        await restarted.mergeSyncArrivals(of: "\(shared)")
        #expect(try await SyncMergeTests.labels(restarted, shared) == ["a": "a39", "b": "b2"])
        #expect(await restarted.setAsideJournals(of: shared).isEmpty)

        // A running follower that verified the compacted journal takes the next compaction too.
        for round in 40..<80 { try await first.setSecret(collection: "login", item: a, to: secret("a\(round)")) }
        #expect(await first.ownJournal(of: "login")?.compaction ?? 0 > compacted.compaction)
        try machines.carry(machines.firstFolder, to: machines.secondFolder)
        await restarted.mergeSyncArrivals(of: shared)
        #expect(try await SyncMergeTests.labels(restarted, shared) == ["a": "a79", "b": "b2"])
        #expect(await restarted.setAsideJournals(of: shared).isEmpty)

        // A "compacted" journal that numbers from record 1 again (dropping records the second machine verified),
        // even one made with the collection's keys, is a fork: set aside, and nothing of it is merged.
        let collection = try #require(SyncIdentifier(hex: enabled.collection))
        let place = SyncFolder(root: machines.secondFolder, collection: collection)
        let keys = try SyncKeys(masterKey: try place.wraps()[0].unwrap(password: password("pw")),
                                collection: place.collection)
        let device = try #require(SyncIdentifier(hex: enabled.device))
        let (header, chain) = try JournalHeader(collection: place.collection, device: device, compaction: 9,
                                                firstSequence: 1).encode(keys: keys)
        let planted = SyncChange.put(SyncItemID.random(), SyncItemContent(
            label: "planted", attributes: [:], contentType: "text/plain", secret: password("p"), created: 1,
            modified: 1))
        let record = try JournalRecordCodec.seal(planted, clock: HybridTimestamp(milliseconds: 1 << 46, counter: 0),
                                                 sequence: 1, device: device, previousMAC: chain, keys: keys)
        try Data(header + record.bytes).write(to: URL(fileURLWithPath: place.journalPath(for: device)))
        await restarted.mergeSyncArrivals(of: shared)
        #expect(await restarted.setAsideJournals(of: shared)[enabled.device]?.contains("differs") == true)
        #expect(try await SyncMergeTests.labels(restarted, shared) == ["a": "a79", "b": "b2"])
    }
}

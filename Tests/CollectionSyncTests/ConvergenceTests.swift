// SPDX-License-Identifier: Apache-2.0
// Three devices, random changes, a sync engine that delivers late, twice, in pieces and not across partitions:
// once everything is delivered, all three hold the same collection, the one the merge rule defines.

@testable import CollectionSync
import Glibc
import SecretCrypto
import Testing

@Suite("Sync: convergence of three devices")
struct ConvergenceTests {
    /// `COFFER_SYNC_SEED` replays a run; `COFFER_SYNC_RUNS` and `COFFER_SYNC_STEPS` make the test longer.
    static func setting(_ name: String) -> UInt64? {
        getenv(name).flatMap { UInt64(String(cString: $0)) }
    }

    @Test("after full delivery all devices hold identical collections, equal to the merge rule's model")
    func converge() throws {
        let runs = Self.setting("COFFER_SYNC_SEED") == nil ? (Self.setting("COFFER_SYNC_RUNS") ?? 4) : 1
        let steps = Int(Self.setting("COFFER_SYNC_STEPS") ?? 250)
        for _ in 0..<runs {
            let seed = Self.setting("COFFER_SYNC_SEED") ?? UInt64.random(in: 0...UInt64.max)
            print("sync-convergence seed=\(seed) steps=\(steps)")
            try run(seed: seed, steps: steps)
        }
    }

    func run(seed: UInt64, steps: Int) throws {
        var random = SeededGenerator(seed: seed)
        let keys = try Fixture.keys()
        // Each machine's wall clock: some ahead, some behind, and sometimes one jumps back.
        let devices = try (0..<3).map { _ in
            try SimulatedDevice(id: .seeded(&random), keys: keys, wall: ManualWallClock(1_700_000_000_000 + UInt64.random(in: 0...5_000, using: &random)))
        }
        // Joining: each device's journal reaches the others before anyone changes anything.
        for source in devices {
            for target in devices where target !== source {
                try SimulatedEngine.deliver(from: source, to: target, whole: true, using: &random)
            }
        }
        for device in devices { try device.pull() }
        var history: [SyncRecord] = []
        var partitioned: Set<[Int]> = []
        var counts = (puts: 0, deletes: 0, deliveries: 0, halves: 0, compactions: 0, restarts: 0)

        for _ in 0..<steps {
            for device in devices { device.wall.advance(UInt64.random(in: 0...3, using: &random)) }
            let index = Int.random(in: 0..<3, using: &random)
            let device = devices[index]
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<35:
                let live = device.merged.items.keys.sorted()
                if live.isEmpty || Bool.random(using: &random) {
                    history.append(try device.make(.put(.seeded(&random), try content(&random))))
                } else {
                    history.append(try device.make(.put(live.randomElement(using: &random)!, try content(&random))))
                }
                counts.puts += 1
            case 35..<45:
                if let victim = device.merged.items.keys.sorted().randomElement(using: &random) {
                    history.append(try device.make(.delete(victim)))
                    counts.deletes += 1
                }
            case 45..<80:
                let target = (index + Int.random(in: 1...2, using: &random)) % 3
                guard !partitioned.contains([index, target].sorted()) else { break }
                let whole = Int.random(in: 0..<3, using: &random) > 0
                try SimulatedEngine.deliver(from: device, to: devices[target], whole: whole, using: &random)
                counts.deliveries += 1
                if !whole { counts.halves += 1 }
            case 80..<90:
                try device.pull()
            case 90..<94:
                let pair = [index, (index + Int.random(in: 1...2, using: &random)) % 3].sorted()
                if partitioned.contains(pair) { partitioned.remove(pair) } else { partitioned.insert(pair) }
            case 94..<97:
                try device.pull()
                try device.compact()
                counts.compactions += 1
            case 97..<98:
                device.wall.set(device.wall.reading() - UInt64.random(in: 0...2_000, using: &random))
            default:
                // Killed during a write: a torn record the engine may carry to others before the restart cuts it.
                try device.tearLastWrite(using: &random)
                if Bool.random(using: &random) {
                    let target = (index + Int.random(in: 1...2, using: &random)) % 3
                    try SimulatedEngine.deliver(from: device, to: devices[target], whole: true, using: &random)
                }
                try device.reopen()
                counts.restarts += 1
            }
        }

        // Full delivery: the partitions heal and the engine carries every journal everywhere, whole.
        for _ in 0..<2 {
            for source in devices {
                for target in devices where target !== source {
                    try SimulatedEngine.deliver(from: source, to: target, whole: true, using: &random)
                }
            }
            for device in devices { try device.pull() }
        }

        // A device that joins now reads only the journals as they are after every compaction: no tombstone may
        // have gone while a change it superseded is still in some journal.
        let newcomer = try SimulatedDevice(id: .seeded(&random), keys: keys, wall: ManualWallClock())
        for source in devices { try SimulatedEngine.deliver(from: source, to: newcomer, whole: true, using: &random) }
        try newcomer.pull()

        let reference = Self.model(history)
        let context = "seed \(seed): \(counts)"
        print("sync-convergence seed=\(seed) live=\(reference.items.count) \(counts)")
        for (number, device) in (devices + [newcomer]).enumerated() {
            #expect(device.damaged.isEmpty, "\(context): set aside \(device.damaged)")
            let view = Self.view(device.merged)
            let missing = reference.stamps.filter { view[$0.key] != $0.value }
            let extra = view.filter { reference.stamps[$0.key] != $0.value }
            #expect(missing.isEmpty && extra.isEmpty,
                    "\(context): device \(number) lacks \(missing) and holds \(extra) against the model")
            #expect(device.merged.items == reference.items, "\(context): item contents differ from the model")
        }
        #expect(!reference.items.isEmpty || counts.puts == 0, "\(context)")
    }

    func content(_ random: inout SeededGenerator) throws -> SyncItemContent {
        let n = UInt64.random(in: 0...999, using: &random)
        var attributes: [String: String] = [:]
        for index in 0..<Int.random(in: 0...3, using: &random) { attributes["k\(index)"] = "v\(n % UInt64(index + 2))" }
        return SyncItemContent(label: "label \(n)", attributes: attributes, contentType: "text/plain",
                               secret: try Fixture.secret("secret \(n)"), created: n, modified: n + 1)
    }

    /// The merge rule at its simplest: over every change ever made, per item the one with the highest
    /// (clock, device id); the items whose winner is not a deletion.
    static func model(_ history: [SyncRecord]) -> (stamps: [SyncItemID: ChangeStamp], items: [SyncItemID: SyncItemContent]) {
        var winners: [SyncItemID: SyncRecord] = [:]
        for record in history {
            let item: SyncItemID
            switch record.change {
            case .put(let id, _), .delete(let id): item = id
            default: continue
            }
            let stamp = ChangeStamp(clock: record.clock, device: record.device)
            if let current = winners[item], ChangeStamp(clock: current.clock, device: current.device) >= stamp { continue }
            winners[item] = record
        }
        var stamps: [SyncItemID: ChangeStamp] = [:]
        var items: [SyncItemID: SyncItemContent] = [:]
        for (item, record) in winners {
            guard case .put(_, let content) = record.change else { continue }
            stamps[item] = ChangeStamp(clock: record.clock, device: record.device)
            items[item] = content
        }
        return (stamps, items)
    }

    /// A device's live items and the stamps of their winning changes.
    static func view(_ merged: MergedCollection) -> [SyncItemID: ChangeStamp] {
        merged.entries.compactMapValues { $0.content == nil ? nil : $0.stamp }
    }
}

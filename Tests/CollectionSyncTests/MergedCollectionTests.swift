// SPDX-License-Identifier: Apache-2.0
// The merge rule and what compaction keeps.

@testable import CollectionSync
import SecretCrypto
import Testing

@Suite("Sync: merge rule")
struct MergedCollectionTests {
    let low = SyncIdentifier(hex: "00000000000000000000000000000001")!
    let high = SyncIdentifier(hex: "ff000000000000000000000000000000")!
    let item = SyncItemID.random()

    func record(_ device: DeviceID, _ milliseconds: UInt64, _ change: SyncChange, sequence: UInt64 = 1) -> SyncRecord {
        SyncRecord(device: device, sequence: sequence, clock: HybridTimestamp(milliseconds: milliseconds, counter: 0),
                   change: change)
    }

    @Test("the later clock wins whatever the arrival order; equal clocks go to the higher device id")
    func highestStampWins() throws {
        let older = record(high, 10, .put(item, try Fixture.content("older")))
        let newer = record(low, 11, .put(item, try Fixture.content("newer")))
        let tieLow = record(low, 12, .put(item, try Fixture.content("tie, low device")), sequence: 2)
        let tieHigh = record(high, 12, .put(item, try Fixture.content("tie, high device")), sequence: 2)
        for order in [[older, newer, tieLow, tieHigh], [tieHigh, tieLow, newer, older], [tieLow, older, tieHigh, newer]] {
            var merged = MergedCollection()
            for record in order { merged.merge(record) }
            #expect(merged.items[item]?.label == "tie, high device")
            #expect(merged.entries[item]?.stamp == ChangeStamp(clock: tieHigh.clock, device: high))
        }
    }

    @Test("any arrival order, with repeats, gives the same collection (seeded shuffles)")
    func orderIndependence() throws {
        let seed = ConvergenceTests.setting("COFFER_SYNC_SEED") ?? UInt64.random(in: 0...UInt64.max)
        var random = SeededGenerator(seed: seed)
        let devices = (0..<3).map { _ in SyncIdentifier.seeded(&random) }
        let items = (0..<6).map { _ in SyncIdentifier.seeded(&random) }
        var records: [SyncRecord] = []
        for sequence in 1...60 as ClosedRange<UInt64> {
            let item = items.randomElement(using: &random)!
            // Few distinct clock values, so equal clocks from different devices occur and the tie-break counts.
            let clock = HybridTimestamp(milliseconds: UInt64.random(in: 1...8, using: &random), counter: 0)
            let change: SyncChange = Bool.random(using: &random)
                ? .delete(item) : .put(item, try Fixture.content("v\(sequence)"))
            records.append(SyncRecord(device: devices.randomElement(using: &random)!, sequence: sequence, clock: clock,
                                      change: change))
        }
        // One change per (device, clock): a device never gives two changes one reading.
        var seenStamps: Set<ChangeStamp> = []
        records = records.filter { seenStamps.insert(ChangeStamp(clock: $0.clock, device: $0.device)).inserted }
        var reference = MergedCollection()
        for record in records { reference.merge(record) }
        for _ in 0..<100 {
            var shuffled = records + records.prefix(Int.random(in: 0...records.count, using: &random))
            shuffled.shuffle(using: &random)
            var merged = MergedCollection()
            for record in shuffled { merged.merge(record) }
            #expect(merged.items == reference.items, "seed \(seed)")
            #expect(merged.entries.mapValues(\.stamp) == reference.entries.mapValues(\.stamp), "seed \(seed)")
        }
    }

    @Test("a tombstone keeps an older change that arrives later from bringing the item back; a newer one does")
    func tombstones() throws {
        var merged = MergedCollection()
        #expect(merged.merge(record(low, 20, .delete(item))) == .none)
        #expect(merged.merge(record(high, 19, .put(item, try Fixture.content("late")))) == .none)
        #expect(merged.items.isEmpty)
        #expect(merged.merge(record(high, 21, .put(item, try Fixture.content("after")), sequence: 2)) == .created(item))
        #expect(merged.items[item]?.label == "after")
    }

    @Test("effects name what clients see: created, changed, deleted, or nothing for a repeat")
    func effects() throws {
        var merged = MergedCollection()
        let put = record(low, 1, .put(item, try Fixture.content("a")))
        #expect(merged.merge(put) == .created(item))
        #expect(merged.merge(put) == .none)
        #expect(merged.merge(record(low, 2, .put(item, try Fixture.content("b")), sequence: 2)) == .changed(item))
        #expect(merged.merge(record(low, 3, .delete(item), sequence: 3)) == .deleted(item))
        #expect(merged.merge(record(low, 4, .delete(item), sequence: 4)) == .none)
        #expect(merged.seen == [low: 4])
    }

    @Test("label, attributes and secret travel together: the winner's content is taken whole")
    func wholeContent() throws {
        var merged = MergedCollection()
        merged.merge(record(low, 5, .put(item, try Fixture.content("L1", secret: "S1", attributes: ["x": "1"]))))
        merged.merge(record(high, 6, .put(item, try Fixture.content("L2", secret: "S2", attributes: ["y": "2"]))))
        #expect(merged.items[item] == (try Fixture.content("L2", secret: "S2", attributes: ["y": "2"])))
    }

    @Test("bookkeeping records change no item; the latest name and seen vector of each device are kept")
    func bookkeeping() {
        var merged = MergedCollection()
        merged.merge(record(low, 5, .deviceName("new name"), sequence: 2))
        merged.merge(record(low, 4, .deviceName("old name"), sequence: 1))
        merged.merge(record(low, 6, .seen([high: 9]), sequence: 3))
        #expect(merged.deviceNames[low]?.name == "new name")
        #expect(merged.announcedSeen[low]?.vector == [high: 9])
        #expect(merged.items.isEmpty)
    }

    @Test("a snapshot keeps the device's winning changes with their clocks and drops those others superseded")
    func snapshotKeepsWinners() throws {
        let mine = SyncItemID.random(), superseded = SyncItemID.random(), theirs = SyncItemID.random()
        var merged = MergedCollection()
        merged.merge(record(low, 1, .put(mine, try Fixture.content("mine"))))
        merged.merge(record(low, 2, .put(superseded, try Fixture.content("v1")), sequence: 2))
        merged.merge(record(high, 3, .put(superseded, try Fixture.content("v2"))))
        merged.merge(record(high, 4, .put(theirs, try Fixture.content("theirs")), sequence: 2))
        merged.merge(record(low, 5, .put(mine, try Fixture.content("mine, edited")), sequence: 3))
        merged.merge(record(low, 6, .deviceName("laptop"), sequence: 4))
        let snapshot = merged.snapshot(of: low, horizons: [high: [:]], now: HybridTimestamp(milliseconds: 9, counter: 0))
        #expect(snapshot.map(\.clock.milliseconds) == [5, 6])
        #expect(snapshot.first?.change == .put(mine, try Fixture.content("mine, edited")))
        #expect(snapshot.last?.change == .deviceName("laptop"))
    }

    @Test("a tombstone is kept until every other known device compacted after merging it, and the grace passed")
    func tombstoneExpiry() throws {
        let third = DeviceID.random(), unheard = DeviceID.random()
        var merged = MergedCollection()
        merged.merge(record(low, 1, .put(item, try Fixture.content("x"))))
        merged.merge(record(low, 2, .delete(item), sequence: 7))
        let tombstone = SnapshotChange(clock: HybridTimestamp(milliseconds: 2, counter: 0), change: .delete(item))
        let later = HybridTimestamp(milliseconds: 2 + MergedCollection.tombstoneGrace, counter: 0)
        #expect(merged.snapshot(of: low, horizons: [high: [low: 7], third: [low: 6]], now: later) == [tombstone])
        #expect(merged.snapshot(of: low, horizons: [high: [low: 7], third: [:]], now: later) == [tombstone])
        #expect(merged.snapshot(of: low, horizons: [high: [low: 7], third: [low: 9], low: [:]], now: later).isEmpty)
        #expect(merged.snapshot(of: low, horizons: [:], now: later).isEmpty)
        // Too young.
        let sooner = HybridTimestamp(milliseconds: 1 + MergedCollection.tombstoneGrace, counter: 0)
        #expect(merged.snapshot(of: low, horizons: [high: [low: 7]], now: sooner) == [tombstone])
        // A device only another device's horizon names, whose journal has not arrived here: it may hold an older
        // change to the item, so the tombstone stays.
        #expect(merged.snapshot(of: low, horizons: [high: [low: 7, unheard: 1]], now: later) == [tombstone])
        // The same for a device named only in a seen vector announced in a journal.
        merged.merge(record(high, 3, .seen([unheard: 4])))
        #expect(merged.snapshot(of: low, horizons: [high: [low: 7]], now: later) == [tombstone])
    }
}

// SPDX-License-Identifier: Apache-2.0
// The hybrid logical clock: never backwards, after everything observed, the wall clock when it is ahead.

@testable import CollectionSync
import Testing

@Suite("Sync: hybrid logical clock and identifiers")
struct HybridLogicalClockTests {
    @Test("a reading follows the wall clock when it moves ahead")
    func followsWallClock() throws {
        let wall = ManualWallClock(5_000)
        var clock = HybridLogicalClock(wallClock: wall.reading)
        #expect(try clock.tick() == HybridTimestamp(milliseconds: 5_000, counter: 0))
        wall.advance(7)
        #expect(try clock.tick() == HybridTimestamp(milliseconds: 5_007, counter: 0))
    }

    @Test("readings keep increasing when the wall clock stands still or goes back")
    func neverBackwards() throws {
        let wall = ManualWallClock(5_000)
        var clock = HybridLogicalClock(wallClock: wall.reading)
        let first = try clock.tick()
        let second = try clock.tick()
        wall.set(10)
        let third = try clock.tick()
        #expect(first < second && second < third)
        #expect(third == HybridTimestamp(milliseconds: 5_000, counter: 2))
    }

    @Test("after observing a remote reading ahead of the wall clock, the next reading is later than it")
    func observesRemote() throws {
        let wall = ManualWallClock(1_000)
        var clock = HybridLogicalClock(wallClock: wall.reading)
        let remote = HybridTimestamp(milliseconds: 9_000, counter: 41)
        clock.observe(remote)
        clock.observe(HybridTimestamp(milliseconds: 2, counter: 0))
        #expect(try clock.tick() == HybridTimestamp(milliseconds: 9_000, counter: 42))
    }

    @Test("a full counter carries into the next millisecond; the very end of the range is an error, not a trap")
    func counterOverflow() throws {
        var clock = HybridLogicalClock(latest: HybridTimestamp(milliseconds: 77, counter: .max), wallClock: { 0 })
        #expect(try clock.tick() == HybridTimestamp(milliseconds: 78, counter: 0))
        var last = HybridLogicalClock(
            latest: HybridTimestamp(milliseconds: HybridTimestamp.maximumMilliseconds, counter: .max), wallClock: { 0 })
        #expect(throws: ClockError.self) { try last.tick() }
    }

    @Test("the packed form round-trips and orders as the readings do")
    func packing() {
        let readings = [HybridTimestamp(milliseconds: 1, counter: 65535), HybridTimestamp(milliseconds: 2, counter: 0),
                        HybridTimestamp(milliseconds: 2, counter: 1), HybridTimestamp(milliseconds: 1 << 47, counter: 3)]
        for (index, reading) in readings.enumerated() {
            #expect(HybridTimestamp(packed: reading.packed) == reading)
            if index > 0 { #expect(readings[index - 1].packed < reading.packed) }
        }
    }

    @Test("identifiers have one spelling: 32 lowercase hex digits")
    func identifiers() throws {
        let id = SyncIdentifier.random()
        #expect(SyncIdentifier(hex: id.description) == id)
        #expect(SyncIdentifier(hex: id.description.uppercased()) == nil || id.description == id.description.uppercased())
        #expect(SyncIdentifier(hex: "0123456789abcdef0123456789abcdeF") == nil)
        #expect(SyncIdentifier(hex: "0123456789abcdef0123456789abcde") == nil)
        #expect(SyncIdentifier(hex: "0123456789abcdef0123456789abcdeg") == nil)
        #expect(SyncIdentifier(bytes: [1, 2, 3]) == nil)
        let low = try #require(SyncIdentifier(hex: "00000000000000000000000000000001"))
        let high = try #require(SyncIdentifier(hex: "10000000000000000000000000000000"))
        #expect(low < high)
    }
}

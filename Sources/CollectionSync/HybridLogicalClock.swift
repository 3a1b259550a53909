// SPDX-License-Identifier: Apache-2.0
// Hybrid logical clocks (Kulkarni et al., 2014): wall-clock time that never runs backwards and orders causes first.

#if canImport(Glibc)
import Glibc
#endif

/// A hybrid logical clock reading: milliseconds of Unix time and a counter that orders readings within one
/// millisecond. Stored as one `u64`, the milliseconds in the high 48 bits.
public struct HybridTimestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Milliseconds since the Unix epoch (48 bits are enough until the year 10889).
    public let milliseconds: UInt64
    /// Orders readings that share a millisecond.
    public let counter: UInt16

    public static let zero = HybridTimestamp(milliseconds: 0, counter: 0)
    /// The largest millisecond value the packed form holds.
    public static let maximumMilliseconds: UInt64 = (1 << 48) - 1

    public init(milliseconds: UInt64, counter: UInt16) {
        precondition(milliseconds <= Self.maximumMilliseconds, "hybrid timestamp beyond 48 bits of milliseconds")
        self.milliseconds = milliseconds
        self.counter = counter
    }

    /// The packed form: milliseconds in the high 48 bits, the counter in the low 16.
    public init(packed: UInt64) {
        milliseconds = packed >> 16
        counter = UInt16(truncatingIfNeeded: packed)
    }

    public var packed: UInt64 { milliseconds << 16 | UInt64(counter) }

    public static func < (lhs: HybridTimestamp, rhs: HybridTimestamp) -> Bool { lhs.packed < rhs.packed }

    public var description: String { "\(milliseconds).\(counter)" }

    /// The reading just after this one: the next counter value, or the next millisecond once the counter is full.
    /// - Returns: `nil` only at the very end of the clock's range.
    func successor() -> HybridTimestamp? {
        if counter < .max { return HybridTimestamp(milliseconds: milliseconds, counter: counter + 1) }
        guard milliseconds < Self.maximumMilliseconds else { return nil }
        return HybridTimestamp(milliseconds: milliseconds + 1, counter: 0)
    }
}

/// Why a clock could not give a reading.
public struct ClockError: Error, CustomStringConvertible, Equatable, Sendable {
    public let description: String
}

/// One device's hybrid logical clock. Every reading is later than every earlier reading and than every remote
/// reading ``observe(_:)`` was shown, and is the wall clock whenever the wall clock is ahead: a change made after
/// seeing another change always wins over it, whatever the machines' clocks say, and otherwise the later edit in
/// wall time wins.
public struct HybridLogicalClock: Sendable {
    /// The latest reading given or observed.
    public private(set) var latest: HybridTimestamp
    private let wallClock: @Sendable () -> UInt64

    /// - Parameters:
    ///   - latest: the latest reading this device gave before (from its journal), so a restart never goes back.
    ///   - wallClock: milliseconds of Unix time; tests pass their own.
    public init(latest: HybridTimestamp = .zero, wallClock: @escaping @Sendable () -> UInt64 = HybridLogicalClock.systemMilliseconds) {
        self.latest = latest
        self.wallClock = wallClock
    }

    /// A reading for a new local change.
    /// - Throws: ``ClockError`` once the clock's range is used up (a remote clock that jumped to its very end).
    public mutating func tick() throws(ClockError) -> HybridTimestamp {
        let wall = min(wallClock(), HybridTimestamp.maximumMilliseconds)
        if wall > latest.milliseconds {
            latest = HybridTimestamp(milliseconds: wall, counter: 0)
        } else if let next = latest.successor() {
            latest = next
        } else {
            throw ClockError(description: "the hybrid logical clock has reached the end of its range")
        }
        return latest
    }

    /// Takes in a reading from another device's change, so that this device's next change is ordered after it.
    ///
    /// A device whose wall clock runs far ahead drags every clock that sees its changes along with it: the changes
    /// are authentic (they carry the collection's key), and ordering after them is what keeps "a change made after
    /// seeing another wins". The wall clock catches up in time.
    public mutating func observe(_ remote: HybridTimestamp) {
        if remote > latest { latest = remote }
    }

    /// The system's real-time clock in milliseconds.
    public static let systemMilliseconds: @Sendable () -> UInt64 = {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return UInt64(max(0, now.tv_sec)) * 1000 + UInt64(max(0, now.tv_nsec)) / 1_000_000
    }
}

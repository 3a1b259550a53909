// SPDX-License-Identifier: Apache-2.0
// Wall-clock time in Unix seconds, the unit of the spec's Created and Modified properties.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the store reads the time; tests inject a fixed clock.
public struct StoreClock: Sendable {
    public var now: @Sendable () -> UInt64

    public init(now: @escaping @Sendable () -> UInt64) { self.now = now }

    /// The system's real-time clock.
    public static let system = StoreClock { UInt64(max(0, time(nil))) }
}

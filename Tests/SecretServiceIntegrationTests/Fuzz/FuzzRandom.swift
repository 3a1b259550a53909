// SPDX-License-Identifier: Apache-2.0
// The fuzz test's seeded random source and its settings from the environment.

import Foundation

/// SplitMix64: small, fast and fully determined by its seed, so a printed seed replays the same call sequence.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound`.
    mutating func below(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &self) }

    /// `true` with probability `percent`/100.
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    /// One element of a non-empty array.
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}

/// How a fuzz run is configured: `COFFER_FUZZ_SEED` replays a run, `COFFER_FUZZ_CALLS` makes it longer.
struct FuzzSettings {
    /// Calls per CI run; the documented long mode raises it through `COFFER_FUZZ_CALLS`.
    static let defaultCalls = 10_000

    var seed: UInt64
    var calls: Int

    static func fromEnvironment() -> FuzzSettings {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["COFFER_FUZZ_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64.max)
        let calls = environment["COFFER_FUZZ_CALLS"].flatMap { Int($0) }.map { max($0, 1) } ?? defaultCalls
        return FuzzSettings(seed: seed, calls: calls)
    }
}

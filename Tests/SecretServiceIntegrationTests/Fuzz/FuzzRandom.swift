// SPDX-License-Identifier: Apache-2.0
// The fuzz test's seeded random source and its settings from the environment.

import Foundation
import SecretServiceTestSupport

/// The fuzz test's generator is the randomized tests' SplitMix64 (SecretServiceTestSupport): small, fast and fully
/// determined by its seed, so a printed seed replays the same call sequence.
typealias SeededRandom = SplitMix64

extension SplitMix64 {
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

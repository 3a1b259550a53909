// SPDX-License-Identifier: Apache-2.0
// Cost parameters for Argon2id, stored alongside encrypted files so they can be raised later.

/// The cost parameters of an Argon2id derivation (RFC 9106).
public struct Argon2idParameters: Sendable, Equatable, Codable {
    /// The number of passes over memory (t), at least 1.
    public var iterations: UInt32
    /// The memory size in KiB (m), at least 8 × ``parallelism`` and at most 4 GiB.
    public var memoryKiB: UInt32
    /// The number of lanes (p), `1...0xFFFFFF`. Lanes are computed one after another (no threads).
    public var parallelism: UInt32

    /// Creates a parameter set.
    /// - Parameters:
    ///   - iterations: Passes over memory (t).
    ///   - memoryKiB: Memory size in KiB (m).
    ///   - parallelism: Lanes (p).
    public init(iterations: UInt32, memoryKiB: UInt32, parallelism: UInt32) {
        self.iterations = iterations
        self.memoryKiB = memoryKiB
        self.parallelism = parallelism
    }

    /// t = 4, m = 64 MiB, p = 1: about 0.3-0.4 s per derivation on the reference machine (2-core x86-64, Debian 12,
    /// libgcrypt 1.10.1; medians 0.31 s idle and 0.37 s while compiling). RFC 9106's "second recommended option"
    /// (t = 3, 64 MiB) measured 0.21-0.28 s there; one more pass puts the cost inside the 0.25-0.5 s target.
    public static let `default` = Argon2idParameters(iterations: 4, memoryKiB: 64 * 1024, parallelism: 1)

    /// The largest accepted memory size: 4 GiB.
    public static let maximumMemoryKiB: UInt32 = 4 * 1024 * 1024

    /// Whether the values are in the range SecretCrypto accepts.
    var isValid: Bool {
        iterations >= 1 && (1...0xFF_FFFF).contains(parallelism)
            && UInt64(memoryKiB) >= 8 * UInt64(parallelism) && memoryKiB <= Self.maximumMemoryKiB
    }
}

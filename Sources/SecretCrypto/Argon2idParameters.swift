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

    /// The most passes a stored key wrap may ask for.
    public static let maximumWrapIterations: UInt32 = 16
    /// The most memory a stored key wrap may ask for: 1 GiB.
    public static let maximumWrapMemoryKiB: UInt32 = 1024 * 1024
    /// The most lanes a stored key wrap may ask for.
    public static let maximumWrapParallelism: UInt32 = 4
    /// The most passes × memory (in KiB) a stored key wrap may ask for: 4 GiB worth of passes, sixteen times the
    /// default's work.
    public static let maximumWrapWork: UInt64 = 4 * 1024 * 1024

    /// Whether these parameters may protect a stored key. They are read from a file before anything in it can be
    /// verified (they are authenticated only with the wrapped key they lead to), so the bounds are what stops an
    /// altered file from making an unlock run for hours or exhaust memory. New passwords must stay inside them too,
    /// or the file written could not be opened again.
    public var isWithinWrapBounds: Bool {
        isValid && iterations <= Self.maximumWrapIterations && memoryKiB <= Self.maximumWrapMemoryKiB
            && parallelism <= Self.maximumWrapParallelism
            && UInt64(iterations) * UInt64(memoryKiB) <= Self.maximumWrapWork
    }

    /// Whether the values are in the range SecretCrypto accepts.
    var isValid: Bool {
        iterations >= 1 && (1...0xFF_FFFF).contains(parallelism)
            && UInt64(memoryKiB) >= 8 * UInt64(parallelism) && memoryKiB <= Self.maximumMemoryKiB
    }
}

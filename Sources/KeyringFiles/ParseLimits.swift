// SPDX-License-Identifier: Apache-2.0
// Bounds the parsers apply to counts and key-derivation costs read from untrusted files.

/// Upper bounds for values a keyring file dictates. Every allocation a parser makes is bounded by the input size
/// anyway; these bound the work (key-derivation iterations) and the number of items.
public struct ParseLimits: Sendable, Equatable {
    /// The most items accepted in one file.
    public var maximumItems: Int
    /// The most key-derivation iterations accepted (SHA-256 rounds for gnome-keyring, PBKDF2 rounds for libsecret).
    public var maximumKDFIterations: Int

    /// The most Argon2id memory a Coffer archive may ask for, in KiB.
    public var maximumArgon2MemoryKiB: UInt32

    public init(maximumItems: Int, maximumKDFIterations: Int, maximumArgon2MemoryKiB: UInt32 = 1 << 20) {
        self.maximumItems = maximumItems
        self.maximumKDFIterations = maximumKDFIterations
        self.maximumArgon2MemoryKiB = maximumArgon2MemoryKiB
    }

    /// 1 000 000 items, 1 000 000 KDF iterations (gnome-keyring writes under 4096, libsecret 100 000) and 1 GiB of
    /// Argon2id memory (Coffer writes 64 MiB).
    public static let `default` = ParseLimits(maximumItems: 1_000_000, maximumKDFIterations: 1_000_000)

    /// Checks a KDF iteration count from a file.
    func checkIterations(_ iterations: Int) throws {
        guard iterations >= 1 else { throw KeyringFileError.malformed("the key-derivation iteration count is 0") }
        guard iterations <= maximumKDFIterations else {
            throw KeyringFileError.limitExceeded("\(iterations) key-derivation iterations (at most \(maximumKDFIterations))")
        }
    }

    /// Checks an item count from a file.
    func checkItems(_ count: Int) throws {
        guard count <= maximumItems else {
            throw KeyringFileError.limitExceeded("\(count) items (at most \(maximumItems))")
        }
    }
}

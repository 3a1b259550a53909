// SPDX-License-Identifier: Apache-2.0
// Cryptographically strong random bytes from libgcrypt's generator.

internal import CGcrypt

/// Random bytes for keys, salts and IVs.
public enum SecureRandom {
    /// Returns `count` random bytes of key quality in an ordinary array (salts, nonces, identifiers).
    /// - Parameter count: The number of bytes; must not be negative.
    /// - Returns: The random bytes.
    ///
    /// The corresponding C function is `gcry_randomize` (with `GCRY_STRONG_RANDOM`).
    public static func bytes(count: Int) -> [UInt8] {
        precondition(count >= 0, "random byte count must not be negative")
        SecretCrypto.ensureInitializedOrTrap()
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            if count > 0 { cgcry_randomize_strong(buffer.baseAddress, count) }
            initialized = count
        }
    }

    /// Returns `count` random bytes of key quality in secure memory (private keys, symmetric keys).
    /// - Parameter count: The number of bytes; must not be negative.
    /// - Throws: ``CryptoError/secureMemoryExhausted`` when no secure memory is left for them.
    /// - Returns: The random bytes.
    ///
    /// The corresponding C function is `gcry_randomize` (with `GCRY_STRONG_RANDOM`).
    public static func secretBytes(count: Int) throws(CryptoError) -> SecretBytes {
        let result = try SecretBytes(count: count)
        if count > 0 {
            result.withUnsafeMutableBytes { cgcry_randomize_strong($0.baseAddress, $0.count) }
        }
        return result
    }

    /// Returns `count` unpredictable bytes for public values such as CBC IVs and AES-GCM nonces, from libgcrypt's
    /// nonce generator, which is seeded from the strong one but does not stir the entropy pool on every call: a
    /// store seals two blobs per write, and the strong generator's per-call poll was a visible share of a write.
    /// - Parameter count: The number of bytes; must not be negative.
    /// - Returns: The nonce bytes.
    ///
    /// The corresponding C function is `gcry_create_nonce`.
    public static func nonce(count: Int) -> [UInt8] {
        precondition(count >= 0, "nonce byte count must not be negative")
        SecretCrypto.ensureInitializedOrTrap()
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            if count > 0 { gcry_create_nonce(buffer.baseAddress, count) }
            initialized = count
        }
    }
}

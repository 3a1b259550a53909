// SPDX-License-Identifier: Apache-2.0
// The iterated-SHA-256 password-to-key step of gnome-keyring's binary keyring files (version 0).

internal import CGcrypt

/// Iterated SHA-256 key derivation: `d = SHA256(password ‖ salt)`, then `iterations - 1` times `d = SHA256(d)`.
///
/// gnome-keyring's binary keyring format derives its AES-128 key (the first 16 bytes of `d`) and IV (the last 16)
/// this way. It is far weaker than a memory-hard KDF; Coffer only reads it, to import such files.
public enum IteratedSHA256 {
    /// The most iterations accepted. gnome-keyring writes 1000...4095; the bound keeps a hostile file from turning
    /// one import into hours of hashing.
    public static let maximumIterations = 1 << 20

    /// Derives the 32-byte digest.
    /// - Parameters:
    ///   - password: the password (may be empty).
    ///   - salt: the salt stored in the file.
    ///   - iterations: the iteration count stored in the file, `1...maximumIterations`.
    /// - Returns: the final digest, in secure memory.
    /// - Throws: ``CryptoError/invalidParameter`` for an iteration count out of range, or a libgcrypt error.
    ///
    /// The corresponding C functions are `gcry_md_open` (`GCRY_MD_SHA256`, secure), `gcry_md_write`,
    /// `gcry_md_read` and `gcry_md_reset`.
    public static func derive(password: SecretBytes, salt: [UInt8], iterations: Int) throws -> SecretBytes {
        guard (1...maximumIterations).contains(iterations) else {
            throw CryptoError(.invalidParameter("an iterated SHA-256 count must be in 1...\(maximumIterations)"))
        }
        let handle = try DigestHandle(algorithm: cgcry_md_sha256, length: MessageDigest.sha256ByteCount)
        let digest = try SecretBytes(count: MessageDigest.sha256ByteCount)
        try digest.withUnsafeMutableBytes { state in
            password.withUnsafeBytes { handle.write($0) }
            salt.withUnsafeBytes { handle.write($0) }
            try handle.finish(into: state)
            for _ in 1..<iterations {
                handle.reset()
                handle.write(UnsafeRawBufferPointer(state))
                try handle.finish(into: state)
            }
        }
        return digest
    }
}

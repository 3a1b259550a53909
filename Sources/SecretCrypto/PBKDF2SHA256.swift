// SPDX-License-Identifier: Apache-2.0
// PBKDF2 with HMAC-SHA256 (RFC 8018), the key derivation of libsecret's file keyrings.

internal import CGcrypt

/// PBKDF2-HMAC-SHA256, for reading libsecret/oo7 file keyrings (Coffer's own files use ``Argon2id``).
public enum PBKDF2SHA256 {
    /// The most iterations accepted: libsecret writes 100 000; the bound keeps a hostile file from costing hours.
    public static let maximumIterations = 10_000_000

    /// Derives `outputByteCount` bytes.
    /// - Parameters:
    ///   - password: the password; must not be empty (libgcrypt refuses empty PBKDF2 passphrases).
    ///   - salt: the salt (non-empty).
    ///   - iterations: `1...maximumIterations`.
    ///   - outputByteCount: the key length, `1...1024`.
    /// - Returns: the key, in secure memory.
    /// - Throws: ``CryptoError/invalidParameter`` for out-of-range arguments, or a libgcrypt error.
    ///
    /// The corresponding C function is `gcry_kdf_derive` (`GCRY_KDF_PBKDF2`, `GCRY_MD_SHA256`).
    public static func deriveKey(password: SecretBytes, salt: [UInt8], iterations: Int, outputByteCount: Int) throws
        -> SecretBytes {
        guard !password.isEmpty else { throw CryptoError(.invalidParameter("PBKDF2 needs a non-empty password")) }
        guard !salt.isEmpty else { throw CryptoError(.invalidParameter("the PBKDF2 salt is empty")) }
        guard (1...maximumIterations).contains(iterations) else {
            throw CryptoError(.invalidParameter("a PBKDF2 iteration count must be in 1...\(maximumIterations)"))
        }
        guard (1...1024).contains(outputByteCount) else {
            throw CryptoError(.invalidParameter("a PBKDF2 output must be 1...1024 bytes"))
        }
        try SecretCrypto.ensureInitialized()
        let output = try SecretBytes(count: outputByteCount)
        try password.withUnsafeBytes { passwordBytes in
            try salt.withUnsafeBytes { saltBytes in
                try output.withUnsafeMutableBytes { key in
                    let error = gcry_kdf_derive(
                        passwordBytes.baseAddress, passwordBytes.count, cgcry_kdf_pbkdf2, cgcry_md_sha256,
                        saltBytes.baseAddress, saltBytes.count, UInt(iterations), key.count, key.baseAddress)
                    try LibgcryptError.check(error, "gcry_kdf_derive")
                }
            }
        }
        return output
    }
}

// SPDX-License-Identifier: Apache-2.0
// Argon2id password-based key derivation (RFC 9106) on libgcrypt's gcry_kdf_open API.

/// Argon2id (RFC 9106), version 0x13, for turning a password into a file-encryption key.
public enum Argon2id {
    /// The minimum salt length accepted (the reference implementation's minimum); 16 random bytes are recommended.
    public static let minimumSaltByteCount = 8

    /// Derives `outputByteCount` bytes from `password` and `salt`.
    ///
    /// Runs synchronously on the calling thread and costs about as much time and memory as `parameters` say; call it
    /// outside actors that must stay responsive. The work area is ordinary heap memory that libgcrypt wipes.
    /// - Parameters:
    ///   - password: The password; must not be empty (libgcrypt rejects empty passwords).
    ///   - salt: At least 8 bytes; use 16 random bytes per file.
    ///   - parameters: The cost parameters (see ``Argon2idParameters/default``).
    ///   - outputByteCount: The key length, at least 4 (32 for an AES-256 key).
    /// - Returns: The derived key, in secure memory.
    /// - Throws: ``CryptoError/invalidParameter`` for an empty password, short salt, invalid parameters or an
    ///   unsupported output length; a libgcrypt error (for example out of memory) otherwise.
    ///
    /// The corresponding C functions are `gcry_kdf_open` (`GCRY_KDF_ARGON2`, `GCRY_KDF_ARGON2ID`), `gcry_kdf_compute`
    /// and `gcry_kdf_final`.
    public static func deriveKey(
        password: SecretBytes, salt: [UInt8], parameters: Argon2idParameters, outputByteCount: Int
    ) throws -> SecretBytes {
        guard salt.count >= minimumSaltByteCount else {
            throw CryptoError(.invalidParameter("an Argon2id salt needs at least \(minimumSaltByteCount) bytes"))
        }
        return try deriveKey(
            password: password, salt: salt, secret: [], associatedData: [], parameters: parameters,
            outputByteCount: outputByteCount)
    }

    /// The full RFC 9106 interface with secret key K and associated data X (used by the RFC test vector).
    static func deriveKey(
        password: SecretBytes, salt: [UInt8], secret: [UInt8], associatedData: [UInt8],
        parameters: Argon2idParameters, outputByteCount: Int
    ) throws -> SecretBytes {
        guard !password.isEmpty else {
            throw CryptoError(.invalidParameter("libgcrypt's Argon2id needs a non-empty password"))
        }
        guard !salt.isEmpty else { throw CryptoError(.invalidParameter("the Argon2id salt is empty")) }
        guard parameters.isValid else {
            throw CryptoError(.invalidParameter("the Argon2id cost parameters are out of range"))
        }
        guard (4...Int(UInt32.max)).contains(outputByteCount) else {
            throw CryptoError(.invalidParameter("an Argon2id output must be at least 4 bytes"))
        }
        let values: [CUnsignedLong] = [
            CUnsignedLong(outputByteCount), CUnsignedLong(parameters.iterations), CUnsignedLong(parameters.memoryKiB),
            CUnsignedLong(parameters.parallelism),
        ]
        let output = try SecretBytes(count: outputByteCount)
        try password.withUnsafeBytes { passwordBytes in
            try salt.withUnsafeBytes { saltBytes in
                try secret.withUnsafeBytes { secretBytes in
                    try associatedData.withUnsafeBytes { adBytes in
                        let kdf = try KDFHandle(
                            argon2idParameters: values, password: passwordBytes, salt: saltBytes,
                            secret: secretBytes, associatedData: adBytes)
                        try kdf.compute()
                        try output.withUnsafeMutableBytes { try kdf.final(into: $0) }
                    }
                }
            }
        }
        return output
    }
}

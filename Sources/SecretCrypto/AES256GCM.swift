// SPDX-License-Identifier: Apache-2.0
// AES-256-GCM authenticated encryption for data at rest.

internal import CGcrypt

/// AES-256 in Galois/Counter Mode (NIST SP 800-38D) with a 96-bit nonce and a 128-bit tag.
public enum AES256GCM {
    /// The AES-256 key length in bytes.
    public static let keyByteCount = 32
    /// The nonce length in bytes. Never reuse a nonce with the same key.
    public static let nonceByteCount = 12
    /// The authentication tag length in bytes, appended to the ciphertext.
    public static let tagByteCount = 16

    // MARK: - Seal

    /// Encrypts and authenticates `plaintext`, and authenticates `associatedData`.
    /// - Parameters:
    ///   - plaintext: The data to encrypt (may be empty).
    ///   - key: A 32-byte key.
    ///   - nonce: A 12-byte nonce, unique per key (for example `SecureRandom.bytes(count: 12)`).
    ///   - associatedData: Data that is authenticated but not encrypted (may be empty).
    /// - Returns: The ciphertext followed by the 16-byte tag.
    /// - Throws: ``CryptoError/invalidKey`` or ``CryptoError/invalidNonce`` for wrong lengths, or a libgcrypt error.
    ///
    /// The corresponding C functions are `gcry_cipher_open` (`GCRY_CIPHER_AES256`, `GCRY_CIPHER_MODE_GCM`),
    /// `gcry_cipher_authenticate`, `gcry_cipher_encrypt` and `gcry_cipher_gettag`.
    public static func seal(
        _ plaintext: SecretBytes, key: SecretBytes, nonce: [UInt8], associatedData: [UInt8]
    ) throws -> [UInt8] {
        let cipher = try makeCipher(key: key, nonce: nonce, associatedData: associatedData)
        var sealed = [UInt8](repeating: 0, count: plaintext.count + tagByteCount)
        try sealed.withUnsafeMutableBytes { output in
            if !plaintext.isEmpty {
                try cipher.finalize()
                try plaintext.withUnsafeBytes { input in
                    let target = UnsafeMutableRawBufferPointer(rebasing: output[..<input.count])
                    try cipher.encrypt(into: target, from: input)
                }
            }
            try cipher.tag(into: UnsafeMutableRawBufferPointer(rebasing: output[plaintext.count...]))
        }
        return sealed
    }

    // MARK: - Open

    /// Verifies and decrypts the output of ``seal(_:key:nonce:associatedData:)``.
    /// - Parameters:
    ///   - sealed: The ciphertext followed by the 16-byte tag.
    ///   - key: The 32-byte key.
    ///   - nonce: The 12-byte nonce used to seal.
    ///   - associatedData: The associated data used to seal.
    /// - Returns: The plaintext, in secure memory.
    /// - Throws: ``CryptoError/authenticationFailed`` if the tag does not match (tampering, wrong key, nonce or
    ///   associated data); ``CryptoError/invalidCiphertext`` if `sealed` is shorter than a tag;
    ///   ``CryptoError/invalidKey`` / ``CryptoError/invalidNonce`` for wrong lengths.
    ///
    /// The corresponding C functions are `gcry_cipher_open`, `gcry_cipher_authenticate`, `gcry_cipher_decrypt` and
    /// `gcry_cipher_checktag`.
    public static func open(
        _ sealed: [UInt8], key: SecretBytes, nonce: [UInt8], associatedData: [UInt8]
    ) throws -> SecretBytes {
        guard sealed.count >= tagByteCount else { throw CryptoError.invalidCiphertext }
        let cipher = try makeCipher(key: key, nonce: nonce, associatedData: associatedData)
        let ciphertextCount = sealed.count - tagByteCount
        let plaintext = SecretBytes(count: ciphertextCount)
        try sealed.withUnsafeBytes { input in
            if ciphertextCount > 0 {
                try cipher.finalize()
                try plaintext.withUnsafeMutableBytes { output in
                    try cipher.decrypt(into: output, from: UnsafeRawBufferPointer(rebasing: input[..<ciphertextCount]))
                }
            }
            // On mismatch `plaintext` is released (and wiped) unreturned.
            try cipher.checkTag(UnsafeRawBufferPointer(rebasing: input[ciphertextCount...]))
        }
        return plaintext
    }

    // MARK: - Helpers

    private static func makeCipher(key: SecretBytes, nonce: [UInt8], associatedData: [UInt8]) throws -> CipherHandle {
        guard key.count == keyByteCount else { throw CryptoError.invalidKey }
        guard nonce.count == nonceByteCount else { throw CryptoError.invalidNonce }
        let cipher = try CipherHandle(algorithm: cgcry_cipher_aes256, mode: cgcry_cipher_mode_gcm)
        try cipher.setKey(key)
        try cipher.setIV(nonce)
        if !associatedData.isEmpty {
            try cipher.authenticate(associatedData)
        }
        return cipher
    }
}

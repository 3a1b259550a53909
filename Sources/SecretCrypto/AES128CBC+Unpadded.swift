// SPDX-License-Identifier: Apache-2.0
// AES-128-CBC over whole blocks without padding, as gnome-keyring's binary keyring files use it.

extension AES128CBC {
    /// Decrypts whole blocks without removing any padding (the caller's format says what the tail holds).
    /// - Parameters:
    ///   - ciphertext: a non-empty multiple of 16 bytes.
    ///   - key: a 16-byte key.
    ///   - iv: a 16-byte IV, in secure memory (gnome-keyring derives it from the password).
    /// - Returns: the plaintext blocks, in secure memory.
    /// - Throws: ``CryptoError/invalidCiphertext`` for an empty or ragged ciphertext, ``CryptoError/invalidKey`` or
    ///   ``CryptoError/invalidIV`` for wrong lengths.
    ///
    /// The corresponding C functions are `gcry_cipher_open` (`GCRY_CIPHER_AES128`, `GCRY_CIPHER_MODE_CBC`),
    /// `gcry_cipher_setkey`, `gcry_cipher_setiv` and `gcry_cipher_decrypt`.
    public static func decryptBlocks(_ ciphertext: UnsafeRawBufferPointer, key: SecretBytes, iv: SecretBytes) throws
        -> SecretBytes {
        guard !ciphertext.isEmpty, ciphertext.count % blockSize == 0 else { throw CryptoError.invalidCiphertext }
        let cipher = try unpaddedCipher(key: key, iv: iv)
        let plaintext = try SecretBytes(count: ciphertext.count)
        try plaintext.withUnsafeMutableBytes { try cipher.decrypt(into: $0, from: ciphertext) }
        return plaintext
    }

    /// Encrypts whole blocks without adding padding (for writing test files in gnome-keyring's binary format).
    /// - Parameters:
    ///   - plaintext: a non-empty multiple of 16 bytes.
    ///   - key: a 16-byte key.
    ///   - iv: a 16-byte IV.
    /// - Returns: the ciphertext.
    /// - Throws: as ``decryptBlocks(_:key:iv:)``.
    public static func encryptBlocks(_ plaintext: SecretBytes, key: SecretBytes, iv: SecretBytes) throws -> [UInt8] {
        guard !plaintext.isEmpty, plaintext.count % blockSize == 0 else { throw CryptoError.invalidCiphertext }
        let cipher = try unpaddedCipher(key: key, iv: iv)
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        try plaintext.withUnsafeBytes { input in
            try ciphertext.withUnsafeMutableBytes { try cipher.encrypt(into: $0, from: input) }
        }
        return ciphertext
    }

    private static func unpaddedCipher(key: SecretBytes, iv: SecretBytes) throws -> CipherHandle {
        guard iv.count == blockSize else { throw CryptoError.invalidIV }
        let cipher = try keyedCipher(key: key)
        try cipher.setIV(iv)
        return cipher
    }
}

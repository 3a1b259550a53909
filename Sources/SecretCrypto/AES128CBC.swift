// SPDX-License-Identifier: Apache-2.0
// AES-128 in CBC mode with PKCS#7 padding, as the Secret Service DH session cipher uses it.

internal import CGcrypt
import Synchronization

/// AES-128-CBC with PKCS#7 padding.
public enum AES128CBC {
    /// The AES block size (and IV length) in bytes.
    public static let blockSize = 16
    /// The AES-128 key length in bytes.
    public static let keyByteCount = 16

    // MARK: - Encryption

    /// Encrypts `plaintext` with PKCS#7 padding.
    ///
    /// The ciphertext is a non-empty multiple of 16 bytes: an empty plaintext gives exactly one block of padding.
    /// The padded plaintext is assembled in secure memory.
    /// - Parameters:
    ///   - plaintext: The secret to encrypt.
    ///   - key: A 16-byte AES key.
    ///   - iv: A 16-byte initialisation vector; use a fresh random one per message.
    /// - Returns: The ciphertext.
    /// - Throws: ``CryptoError/invalidKey`` or ``CryptoError/invalidIV`` for wrong lengths, or a libgcrypt error.
    ///
    /// The corresponding C functions are `gcry_cipher_open` (`GCRY_CIPHER_AES128`, `GCRY_CIPHER_MODE_CBC`),
    /// `gcry_cipher_setkey`, `gcry_cipher_setiv` and `gcry_cipher_encrypt`.
    public static func encrypt(_ plaintext: SecretBytes, key: SecretBytes, iv: [UInt8]) throws -> [UInt8] {
        guard iv.count == blockSize else { throw CryptoError.invalidIV }
        return try Key(key).encrypt(plaintext, iv: iv)
    }

    /// Encrypts with a keyed context that is already at the start of a message.
    fileprivate static func encrypt(_ plaintext: SecretBytes, with cipher: borrowing CipherHandle) throws -> [UInt8] {
        let padLength = blockSize - plaintext.count % blockSize
        let padded = try SecretBytes(count: plaintext.count + padLength)
        padded.withUnsafeMutableBytes { target in
            plaintext.withUnsafeBytes { source in
                if let base = source.baseAddress, source.count > 0 {
                    target.baseAddress!.copyMemory(from: base, byteCount: source.count)
                }
            }
            for index in plaintext.count..<target.count {
                target[index] = UInt8(padLength)
            }
        }
        var ciphertext = [UInt8](repeating: 0, count: padded.count)
        try padded.withUnsafeBytes { input in
            try ciphertext.withUnsafeMutableBytes { output in
                try cipher.encrypt(into: output, from: input)
            }
        }
        return ciphertext
    }

    // MARK: - Decryption

    /// Decrypts `ciphertext` and removes its PKCS#7 padding, with the same checks libsecret applies.
    ///
    /// The decrypted block stream and the result stay in secure memory.
    /// - Parameters:
    ///   - ciphertext: A non-empty multiple of 16 bytes.
    ///   - key: A 16-byte AES key.
    ///   - iv: The 16-byte IV used for encryption.
    /// - Returns: The plaintext.
    /// - Throws: ``CryptoError/invalidIV`` if `iv` is not 16 bytes; ``CryptoError/invalidCiphertext`` if the
    ///   ciphertext is empty or not a multiple of 16; ``CryptoError/invalidPadding`` if the pad byte is 0 or above
    ///   16 or the pad bytes differ; ``CryptoError/invalidKey`` for a wrong key length.
    ///
    /// The corresponding C functions are `gcry_cipher_open` (`GCRY_CIPHER_AES128`, `GCRY_CIPHER_MODE_CBC`),
    /// `gcry_cipher_setkey`, `gcry_cipher_setiv` and `gcry_cipher_decrypt`.
    public static func decrypt(_ ciphertext: [UInt8], key: SecretBytes, iv: [UInt8]) throws -> SecretBytes {
        guard iv.count == blockSize else { throw CryptoError.invalidIV }
        guard !ciphertext.isEmpty, ciphertext.count % blockSize == 0 else { throw CryptoError.invalidCiphertext }
        return try Key(key).decrypt(ciphertext, iv: iv)
    }

    /// Decrypts with a keyed context that is already at the start of a message.
    fileprivate static func decrypt(_ ciphertext: [UInt8], with cipher: borrowing CipherHandle) throws -> SecretBytes {
        guard !ciphertext.isEmpty, ciphertext.count % blockSize == 0 else { throw CryptoError.invalidCiphertext }
        let padded = try SecretBytes(count: ciphertext.count)
        try ciphertext.withUnsafeBytes { input in
            try padded.withUnsafeMutableBytes { output in
                try cipher.decrypt(into: output, from: input)
            }
        }
        let plaintextLength = try padded.withUnsafeBytes { bytes in
            try unpaddedLength(bytes)
        }
        return try padded.withUnsafeBytes { bytes in
            try SecretBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[0..<plaintextLength]))
        }
    }

    // MARK: - Helpers

    /// An AES-128-CBC handle with `key` set; the caller sets the IV.
    static func keyedCipher(key: SecretBytes) throws -> CipherHandle {
        guard key.count == keyByteCount else { throw CryptoError.invalidKey }
        let cipher = try CipherHandle(algorithm: cgcry_cipher_aes128, mode: cgcry_cipher_mode_cbc)
        try cipher.setKey(key)
        return cipher
    }

    /// Validates PKCS#7 padding over the last block without branching on the pad contents.
    private static func unpaddedLength(_ padded: UnsafeRawBufferPointer) throws -> Int {
        let padByte = padded[padded.count - 1]
        let padLength = Int(padByte)
        var bad: UInt8 = (padLength == 0 || padLength > blockSize) ? 1 : 0
        for offset in 1...blockSize {
            let inPadding: UInt8 = offset <= padLength ? 0xFF : 0
            bad |= (padded[padded.count - offset] ^ padByte) & inPadding
        }
        guard bad == 0 else { throw CryptoError.invalidPadding }
        return padded.count - padLength
    }
}

extension AES128CBC {
    /// A 16-byte key with its libgcrypt context opened and keyed once, in secure memory: a session's key, used for
    /// every secret the session carries. Opening a context per secret cost an allocation and a random-pool poll
    /// each time. libgcrypt contexts are not safe to share, so the context is used under a lock, held only for one
    /// message.
    public final class Key: Sendable {
        private let cipher: Mutex<CipherHandle>

        /// - Throws: ``CryptoError/invalidKey`` unless `key` is 16 bytes, or a libgcrypt error.
        public init(_ key: SecretBytes) throws {
            cipher = Mutex(try AES128CBC.keyedCipher(key: key))
        }

        /// Encrypts `plaintext` with PKCS#7 padding; see ``AES128CBC/encrypt(_:key:iv:)``.
        public func encrypt(_ plaintext: SecretBytes, iv: [UInt8]) throws -> [UInt8] {
            guard iv.count == blockSize else { throw CryptoError.invalidIV }
            return try cipher.withLock { cipher throws -> [UInt8] in
                try cipher.reset()
                try cipher.setIV(iv)
                return try AES128CBC.encrypt(plaintext, with: cipher)
            }
        }

        /// Decrypts and unpads; see ``AES128CBC/decrypt(_:key:iv:)``.
        public func decrypt(_ ciphertext: [UInt8], iv: [UInt8]) throws -> SecretBytes {
            guard iv.count == blockSize else { throw CryptoError.invalidIV }
            return try cipher.withLock { cipher throws -> SecretBytes in
                try cipher.reset()
                try cipher.setIV(iv)
                return try AES128CBC.decrypt(ciphertext, with: cipher)
            }
        }
    }
}

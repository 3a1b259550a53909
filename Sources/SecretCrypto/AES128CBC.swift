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

    /// Encrypts with a keyed context whose IV is set. The whole blocks go straight from `plaintext` to the
    /// ciphertext; only the last, padded block is assembled, in `tail` (one block of secure memory, wiped after).
    /// A padded copy of the whole secret would cost a secure allocation per message.
    fileprivate static func encrypt(_ plaintext: SecretBytes, with cipher: borrowing CipherHandle,
                                    tail: SecretBytes) throws -> [UInt8] {
        let whole = plaintext.count / blockSize * blockSize
        let padLength = blockSize - (plaintext.count - whole)
        var ciphertext = [UInt8](repeating: 0, count: whole + blockSize)
        defer { tail.wipe() }
        try plaintext.withUnsafeBytes { input in
            try tail.withUnsafeMutableBytes { block in
                let rest = UnsafeRawBufferPointer(rebasing: input[whole...])
                if let base = rest.baseAddress, !rest.isEmpty {
                    block.baseAddress!.copyMemory(from: base, byteCount: rest.count)
                }
                for index in rest.count..<blockSize { block[index] = UInt8(padLength) }
                try ciphertext.withUnsafeMutableBytes { output in
                    if whole > 0 {
                        try cipher.encrypt(into: UnsafeMutableRawBufferPointer(rebasing: output[..<whole]),
                                           from: UnsafeRawBufferPointer(rebasing: input[..<whole]))
                    }
                    try cipher.encrypt(into: UnsafeMutableRawBufferPointer(rebasing: output[whole...]),
                                       from: UnsafeRawBufferPointer(block))
                }
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

    /// Decrypts with a keyed context, allocating secure memory once, for the plaintext alone. The last block is
    /// decrypted first, into `tail` (chained from the block before it), because its padding gives the plaintext's
    /// length; then the whole blocks before it go straight into the plaintext.
    fileprivate static func decrypt(_ ciphertext: [UInt8], iv: [UInt8], with cipher: borrowing CipherHandle,
                                    tail: SecretBytes) throws -> SecretBytes {
        guard !ciphertext.isEmpty, ciphertext.count % blockSize == 0 else { throw CryptoError.invalidCiphertext }
        let whole = ciphertext.count - blockSize
        defer { tail.wipe() }
        return try ciphertext.withUnsafeBytes { input in
            try cipher.reset()
            if whole == 0 {
                try cipher.setIV(iv)
            } else {
                try cipher.setIV(UnsafeRawBufferPointer(rebasing: input[(whole - blockSize)..<whole]))
            }
            try tail.withUnsafeMutableBytes { block in
                try cipher.decrypt(into: block, from: UnsafeRawBufferPointer(rebasing: input[whole...]))
            }
            let kept = try tail.withUnsafeBytes { try unpaddedLength($0) }
            let plaintext = try SecretBytes(count: whole + kept)
            try plaintext.withUnsafeMutableBytes { output in
                if whole > 0 {
                    try cipher.reset()
                    try cipher.setIV(iv)
                    try cipher.decrypt(into: UnsafeMutableRawBufferPointer(rebasing: output[..<whole]),
                                       from: UnsafeRawBufferPointer(rebasing: input[..<whole]))
                }
                tail.withUnsafeBytes { block in
                    if kept > 0 { (output.baseAddress! + whole).copyMemory(from: block.baseAddress!, byteCount: kept) }
                }
            }
            return plaintext
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
    /// each time; the block of secure memory each message's padded tail passes through is kept with it for the same
    /// reason. libgcrypt contexts are not safe to share, so both are used under a lock, held only for one message.
    public final class Key: Sendable {
        private let keyed: Mutex<Keyed>

        /// The context and the tail block, owned together by the lock.
        private struct Keyed: ~Copyable {
            let cipher: CipherHandle
            let tail: SecretBytes
        }

        /// - Throws: ``CryptoError/invalidKey`` unless `key` is 16 bytes, or a libgcrypt error.
        public init(_ key: SecretBytes) throws {
            keyed = Mutex(Keyed(cipher: try AES128CBC.keyedCipher(key: key), tail: try SecretBytes(count: blockSize)))
        }

        /// Encrypts `plaintext` with PKCS#7 padding; see ``AES128CBC/encrypt(_:key:iv:)``.
        public func encrypt(_ plaintext: SecretBytes, iv: [UInt8]) throws -> [UInt8] {
            guard iv.count == blockSize else { throw CryptoError.invalidIV }
            return try keyed.withLock { keyed throws -> [UInt8] in
                try keyed.cipher.reset()
                try keyed.cipher.setIV(iv)
                return try AES128CBC.encrypt(plaintext, with: keyed.cipher, tail: keyed.tail)
            }
        }

        /// Decrypts and unpads; see ``AES128CBC/decrypt(_:key:iv:)``.
        public func decrypt(_ ciphertext: [UInt8], iv: [UInt8]) throws -> SecretBytes {
            guard iv.count == blockSize else { throw CryptoError.invalidIV }
            return try keyed.withLock { keyed throws -> SecretBytes in
                try AES128CBC.decrypt(ciphertext, iv: iv, with: keyed.cipher, tail: keyed.tail)
            }
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// AES-256-GCM authenticated encryption for data at rest.

internal import CGcrypt
import Synchronization

/// AES-256 in Galois/Counter Mode (NIST SP 800-38D) with a 96-bit nonce and a 128-bit tag.
public enum AES256GCM {
    /// The AES-256 key length in bytes.
    public static let keyByteCount = 32
    /// The nonce length in bytes. Never reuse a nonce with the same key.
    public static let nonceByteCount = 12
    /// The authentication tag length in bytes, appended to the ciphertext.
    public static let tagByteCount = 16

    /// Encrypts and authenticates `plaintext`, and authenticates `associatedData`, under a one-off key.
    /// Callers that use one key many times keep a ``Key`` instead.
    /// - Returns: The ciphertext followed by the 16-byte tag.
    /// - Throws: as ``Key/seal(_:nonce:associatedData:)``, and ``CryptoError/invalidKey`` for a wrong key length.
    public static func seal(
        _ plaintext: SecretBytes, key: SecretBytes, nonce: [UInt8], associatedData: [UInt8]
    ) throws -> [UInt8] {
        try Key(key).seal(plaintext, nonce: nonce, associatedData: associatedData)
    }

    /// Verifies and decrypts the output of ``seal(_:key:nonce:associatedData:)`` under a one-off key.
    /// - Returns: The plaintext, in secure memory.
    /// - Throws: as ``Key/open(_:nonce:associatedData:)``, and ``CryptoError/invalidKey`` for a wrong key length.
    public static func open(
        _ sealed: [UInt8], key: SecretBytes, nonce: [UInt8], associatedData: [UInt8]
    ) throws -> SecretBytes {
        try Key(key).open(sealed, nonce: nonce, associatedData: associatedData)
    }

    /// A 32-byte key with its libgcrypt context opened and keyed once, in secure memory.
    ///
    /// A collection's data key opens a value on every lookup and every record at start-up; opening a context per
    /// value cost an allocation and a random-pool poll each time. libgcrypt contexts are not safe to share, so the
    /// context is used under a lock, held only for the few microseconds of one operation.
    public final class Key: Sendable {
        private let cipher: Mutex<CipherHandle>

        /// - Throws: ``CryptoError/invalidKey`` unless `key` is 32 bytes, or a libgcrypt error.
        ///
        /// The corresponding C functions are `gcry_cipher_open` (`GCRY_CIPHER_AES256`, `GCRY_CIPHER_MODE_GCM`,
        /// secure) and `gcry_cipher_setkey`.
        public init(_ key: SecretBytes) throws {
            guard key.count == keyByteCount else { throw CryptoError.invalidKey }
            let handle = try CipherHandle(algorithm: cgcry_cipher_aes256, mode: cgcry_cipher_mode_gcm)
            try handle.setKey(key)
            cipher = Mutex(handle)
        }

        /// Encrypts and authenticates `plaintext`, and authenticates `associatedData`.
        /// - Parameters:
        ///   - plaintext: The data to encrypt (may be empty).
        ///   - nonce: A 12-byte nonce, unique per key (for example `SecureRandom.bytes(count: 12)`).
        ///   - associatedData: Data that is authenticated but not encrypted (may be empty).
        /// - Returns: The ciphertext followed by the 16-byte tag.
        /// - Throws: ``CryptoError/invalidNonce`` for a wrong nonce length, or a libgcrypt error.
        ///
        /// The corresponding C functions are `gcry_cipher_reset`, `gcry_cipher_setiv`, `gcry_cipher_authenticate`,
        /// `gcry_cipher_encrypt` and `gcry_cipher_gettag`.
        public func seal(_ plaintext: SecretBytes, nonce: [UInt8], associatedData: [UInt8]) throws -> [UInt8] {
            try cipher.withLock { cipher throws -> [UInt8] in
                try AES256GCM.start(cipher, nonce: nonce, associatedData: associatedData)
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
        }

        /// Verifies and decrypts the output of ``seal(_:nonce:associatedData:)``.
        /// - Parameters:
        ///   - sealed: The ciphertext followed by the 16-byte tag.
        ///   - nonce: The 12-byte nonce used to seal.
        ///   - associatedData: The associated data used to seal.
        /// - Returns: The plaintext, in secure memory.
        /// - Throws: ``CryptoError/authenticationFailed`` if the tag does not match (tampering, wrong key, nonce or
        ///   associated data); ``CryptoError/invalidCiphertext`` if `sealed` is shorter than a tag;
        ///   ``CryptoError/invalidNonce`` for a wrong nonce length.
        ///
        /// The corresponding C functions are `gcry_cipher_reset`, `gcry_cipher_setiv`, `gcry_cipher_authenticate`,
        /// `gcry_cipher_decrypt` and `gcry_cipher_checktag`.
        public func open(_ sealed: [UInt8], nonce: [UInt8], associatedData: [UInt8]) throws -> SecretBytes {
            guard sealed.count >= tagByteCount else { throw CryptoError.invalidCiphertext }
            return try cipher.withLock { cipher throws -> SecretBytes in
                try AES256GCM.start(cipher, nonce: nonce, associatedData: associatedData)
                let ciphertextCount = sealed.count - tagByteCount
                let plaintext = try SecretBytes(count: ciphertextCount)
                try sealed.withUnsafeBytes { input in
                    if ciphertextCount > 0 {
                        try cipher.finalize()
                        try plaintext.withUnsafeMutableBytes { output in
                            try cipher.decrypt(into: output,
                                               from: UnsafeRawBufferPointer(rebasing: input[..<ciphertextCount]))
                        }
                    }
                    // On mismatch `plaintext` is released (and wiped) unreturned.
                    try cipher.checkTag(UnsafeRawBufferPointer(rebasing: input[ciphertextCount...]))
                }
                return plaintext
            }
        }
    }

    /// Brings a keyed context to the start of one message: fresh state, the nonce, the associated data.
    private static func start(_ cipher: borrowing CipherHandle, nonce: [UInt8], associatedData: [UInt8]) throws {
        guard nonce.count == nonceByteCount else { throw CryptoError.invalidNonce }
        try cipher.reset()
        try cipher.setIV(nonce)
        if !associatedData.isEmpty {
            try cipher.authenticate(associatedData)
        }
    }
}

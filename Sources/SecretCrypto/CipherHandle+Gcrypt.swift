// SPDX-License-Identifier: Apache-2.0
// An owned libgcrypt symmetric-cipher handle, closed when it goes out of scope.

internal import CGcrypt

/// A `gcry_cipher_hd_t` allocated in secure memory, released by `deinit`.
struct CipherHandle: ~Copyable {
    private let handle: gcry_cipher_hd_t

    /// Opens a cipher handle with key schedule and IV state in secure memory.
    /// - Parameters:
    ///   - algorithm: A `GCRY_CIPHER_*` value (see the `cgcry_cipher_*` mirrors).
    ///   - mode: A `GCRY_CIPHER_MODE_*` value.
    /// - Throws: ``CryptoError`` if libgcrypt refuses.
    ///
    /// The corresponding C function is `gcry_cipher_open`.
    init(algorithm: Int32, mode: Int32) throws {
        try SecretCrypto.ensureInitialized()
        var opened: gcry_cipher_hd_t?
        try LibgcryptError.checkSecureOpen(gcry_cipher_open(&opened, algorithm, mode, cgcry_cipher_secure), "gcry_cipher_open")
        guard let opened else { throw CryptoError.library(code: -1, source: "gcry_cipher_open") }
        handle = opened
    }

    deinit {
        gcry_cipher_close(handle)
    }

    /// Sets the key.
    /// - Parameter key: The key bytes.
    /// - Throws: ``CryptoError`` if the key length is wrong for the algorithm.
    ///
    /// The corresponding C function is `gcry_cipher_setkey`.
    func setKey(_ key: SecretBytes) throws {
        let error = key.withUnsafeBytes { gcry_cipher_setkey(handle, $0.baseAddress, $0.count) }
        try LibgcryptError.check(error, "gcry_cipher_setkey")
    }

    /// Sets the IV or nonce.
    /// - Parameter iv: The IV bytes.
    /// - Throws: ``CryptoError`` if libgcrypt refuses the length.
    ///
    /// The corresponding C function is `gcry_cipher_setiv`.
    func setIV(_ iv: [UInt8]) throws {
        try iv.withUnsafeBytes { try setIV($0) }
    }

    /// Sets the IV from memory the caller holds (CBC decryption chains from a block of the ciphertext).
    /// - Parameter iv: The IV bytes.
    /// - Throws: ``CryptoError`` if libgcrypt refuses the length.
    ///
    /// The corresponding C function is `gcry_cipher_setiv`.
    func setIV(_ iv: UnsafeRawBufferPointer) throws {
        try LibgcryptError.check(gcry_cipher_setiv(handle, iv.baseAddress, iv.count), "gcry_cipher_setiv")
    }

    /// Sets an IV that is itself derived from a secret (gnome-keyring derives it from the password).
    /// - Parameter iv: The IV bytes.
    /// - Throws: ``CryptoError`` if libgcrypt refuses the length.
    ///
    /// The corresponding C function is `gcry_cipher_setiv`.
    func setIV(_ iv: SecretBytes) throws {
        try iv.withUnsafeBytes { try setIV($0) }
    }

    /// Feeds additional authenticated data (AEAD modes).
    /// - Parameter data: The associated data.
    /// - Throws: ``CryptoError`` on failure.
    ///
    /// The corresponding C function is `gcry_cipher_authenticate`.
    func authenticate(_ data: [UInt8]) throws {
        let error = data.withUnsafeBytes { gcry_cipher_authenticate(handle, $0.baseAddress, $0.count) }
        try LibgcryptError.check(error, "gcry_cipher_authenticate")
    }

    /// Returns the handle to the state right after `setKey`: the key schedule stays, IV and AEAD state go. A keyed
    /// handle is reused this way instead of being opened again, which costs an allocation in secure memory and a
    /// random-pool poll (two system calls) each time.
    /// - Throws: ``CryptoError`` on failure.
    ///
    /// The corresponding C function is `gcry_cipher_ctl(GCRYCTL_RESET)` (the `gcry_cipher_reset` macro).
    func reset() throws {
        try LibgcryptError.check(gcry_cipher_ctl(handle, Int32(GCRYCTL_RESET.rawValue), nil, 0), "gcry_cipher_reset")
    }

    /// Marks the next encrypt/decrypt call as the last one (needed before GCM tag handling).
    /// - Throws: ``CryptoError`` on failure.
    ///
    /// The corresponding C function is `gcry_cipher_ctl(GCRYCTL_FINALIZE)` (the `gcry_cipher_final` macro).
    func finalize() throws {
        try LibgcryptError.check(gcry_cipher_ctl(handle, Int32(GCRYCTL_FINALIZE.rawValue), nil, 0), "gcry_cipher_final")
    }

    /// Encrypts `input` into `output` (same length; `input` may be `output` for in-place work).
    /// - Parameters:
    ///   - output: Destination buffer.
    ///   - input: Source bytes.
    /// - Throws: ``CryptoError`` on failure (for example a length that is not a block multiple in CBC mode).
    ///
    /// The corresponding C function is `gcry_cipher_encrypt`.
    func encrypt(into output: UnsafeMutableRawBufferPointer, from input: UnsafeRawBufferPointer) throws {
        let error = gcry_cipher_encrypt(handle, output.baseAddress, output.count, input.baseAddress, input.count)
        try LibgcryptError.check(error, "gcry_cipher_encrypt")
    }

    /// Decrypts `input` into `output` (same length).
    /// - Parameters:
    ///   - output: Destination buffer.
    ///   - input: Source bytes.
    /// - Throws: ``CryptoError`` on failure.
    ///
    /// The corresponding C function is `gcry_cipher_decrypt`.
    func decrypt(into output: UnsafeMutableRawBufferPointer, from input: UnsafeRawBufferPointer) throws {
        let error = gcry_cipher_decrypt(handle, output.baseAddress, output.count, input.baseAddress, input.count)
        try LibgcryptError.check(error, "gcry_cipher_decrypt")
    }

    /// Reads the authentication tag after encryption.
    /// - Parameter output: Where to write the tag; its size selects the tag length.
    /// - Throws: ``CryptoError`` on failure.
    ///
    /// The corresponding C function is `gcry_cipher_gettag`.
    func tag(into output: UnsafeMutableRawBufferPointer) throws {
        try LibgcryptError.check(gcry_cipher_gettag(handle, output.baseAddress, output.count), "gcry_cipher_gettag")
    }

    /// Checks the authentication tag after decryption.
    /// - Parameter tag: The expected tag.
    /// - Throws: ``CryptoError/authenticationFailed`` when it does not match.
    ///
    /// The corresponding C function is `gcry_cipher_checktag`.
    func checkTag(_ tag: UnsafeRawBufferPointer) throws {
        let error = gcry_cipher_checktag(handle, tag.baseAddress, tag.count)
        if cgcry_error_code(error) == cgcry_err_checksum { throw CryptoError.authenticationFailed }
        try LibgcryptError.check(error, "gcry_cipher_checktag")
    }
}

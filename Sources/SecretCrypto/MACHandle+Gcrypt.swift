// SPDX-License-Identifier: Apache-2.0
// An owned libgcrypt MAC handle (HMAC-SHA256), closed when it goes out of scope.

internal import CGcrypt

/// A `gcry_mac_hd_t` for HMAC-SHA256 with its buffers in secure memory, released by `deinit`.
struct MACHandle: ~Copyable {
    /// The HMAC-SHA256 output length in bytes.
    static let sha256Length = 32

    private let handle: gcry_mac_hd_t

    /// Opens an HMAC-SHA256 context keyed with secret bytes.
    /// - Parameter key: The HMAC key.
    /// - Throws: ``CryptoError`` if libgcrypt refuses.
    ///
    /// The corresponding C functions are `gcry_mac_open` and `gcry_mac_setkey`.
    init(hmacSHA256Key key: SecretBytes) throws {
        handle = try key.withUnsafeBytes { try Self.open(key: $0) }
    }

    /// Opens an HMAC-SHA256 context keyed with public bytes (an HKDF salt).
    /// - Parameter key: The HMAC key.
    /// - Throws: ``CryptoError`` if libgcrypt refuses.
    ///
    /// The corresponding C functions are `gcry_mac_open` and `gcry_mac_setkey`.
    init(hmacSHA256Key key: [UInt8]) throws {
        handle = try key.withUnsafeBytes { try Self.open(key: $0) }
    }

    /// Opens and keys a handle. An empty key is replaced by 32 zero bytes, which gives the same HMAC (keys are
    /// zero-padded to the block size) and avoids libgcrypt's rejection of zero-length keys.
    private static func open(key: UnsafeRawBufferPointer) throws -> gcry_mac_hd_t {
        try SecretCrypto.ensureInitialized()
        var opened: gcry_mac_hd_t?
        let openError = gcry_mac_open(&opened, cgcry_mac_hmac_sha256, cgcry_mac_flag_secure, nil)
        try LibgcryptError.checkSecureOpen(openError, "gcry_mac_open")
        guard let opened else { throw CryptoError.library(code: -1, source: "gcry_mac_open") }
        let error: gcry_error_t
        if key.count == 0 {
            let zeros = [UInt8](repeating: 0, count: sha256Length)
            error = zeros.withUnsafeBytes { gcry_mac_setkey(opened, $0.baseAddress, $0.count) }
        } else {
            error = gcry_mac_setkey(opened, key.baseAddress, key.count)
        }
        if cgcry_error_code(error) != 0 {
            gcry_mac_close(opened)
            throw CryptoError.library(code: cgcry_error_code(error), source: "gcry_mac_setkey")
        }
        return opened
    }

    deinit {
        gcry_mac_close(handle)
    }

    /// Feeds message bytes.
    /// - Parameter bytes: The bytes to authenticate.
    /// - Throws: ``CryptoError`` on failure.
    ///
    /// The corresponding C function is `gcry_mac_write`.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count > 0 else { return }
        try LibgcryptError.check(gcry_mac_write(handle, bytes.baseAddress, bytes.count), "gcry_mac_write")
    }

    /// Readies the handle for another message under the same key.
    /// - Throws: ``CryptoError`` on failure.
    ///
    /// The corresponding C function is `gcry_mac_reset` (`gcry_mac_ctl` with `GCRYCTL_RESET`).
    func reset() throws {
        try LibgcryptError.check(cgcry_mac_reset(handle), "gcry_mac_reset")
    }

    /// Writes the 32-byte MAC into `output`.
    /// - Parameter output: A buffer of at least 32 bytes.
    /// - Throws: ``CryptoError`` on failure.
    ///
    /// The corresponding C function is `gcry_mac_read`.
    func read(into output: UnsafeMutableRawBufferPointer) throws {
        precondition(output.count >= Self.sha256Length)
        var length = Self.sha256Length
        try LibgcryptError.check(gcry_mac_read(handle, output.baseAddress, &length), "gcry_mac_read")
        guard length == Self.sha256Length else { throw CryptoError.library(code: -1, source: "gcry_mac_read") }
    }
}

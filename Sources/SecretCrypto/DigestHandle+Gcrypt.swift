// SPDX-License-Identifier: Apache-2.0
// An owned libgcrypt message-digest handle in secure memory, closed when it goes out of scope.

internal import CGcrypt

/// A `gcry_md_hd_t` whose state lives in secure memory (it hashes passwords and decrypted data), released by
/// `deinit`.
struct DigestHandle: ~Copyable {
    private let handle: gcry_md_hd_t
    /// The digest length in bytes.
    let length: Int

    /// Opens a digest context.
    /// - Parameters:
    ///   - algorithm: a `GCRY_MD_*` value (`cgcry_md_sha256`, `cgcry_md_md5`).
    ///   - length: the digest length of that algorithm.
    /// - Throws: ``CryptoError`` if libgcrypt refuses.
    ///
    /// The corresponding C function is `gcry_md_open` with `GCRY_MD_FLAG_SECURE`.
    init(algorithm: Int32, length: Int) throws {
        try SecretCrypto.ensureInitialized()
        var opened: gcry_md_hd_t?
        try LibgcryptError.checkSecureOpen(cgcry_md_open_secure(&opened, algorithm), "gcry_md_open")
        guard let opened else { throw CryptoError.library(code: -1, source: "gcry_md_open") }
        handle = opened
        self.length = length
    }

    deinit {
        gcry_md_close(handle)
    }

    /// Starts a new message (the algorithm stays).
    ///
    /// The corresponding C function is `gcry_md_reset`.
    func reset() {
        gcry_md_reset(handle)
    }

    /// Feeds bytes.
    /// - Parameter bytes: the message bytes.
    ///
    /// The corresponding C function is `gcry_md_write`.
    func write(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        gcry_md_write(handle, base, bytes.count)
    }

    /// Finishes the message and copies the digest into `output`, which must hold ``length`` bytes.
    /// - Parameter output: the destination.
    /// - Throws: ``CryptoError`` if libgcrypt returns no digest.
    ///
    /// The corresponding C functions are `gcry_md_final` and `gcry_md_read`.
    func finish(into output: UnsafeMutableRawBufferPointer) throws {
        precondition(output.count == length)
        cgcry_md_final(handle)
        guard let digest = gcry_md_read(handle, 0) else { throw CryptoError.library(code: -1, source: "gcry_md_read") }
        output.baseAddress!.copyMemory(from: digest, byteCount: length)
    }
}

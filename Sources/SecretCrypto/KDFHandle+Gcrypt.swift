// SPDX-License-Identifier: Apache-2.0
// An owned libgcrypt KDF handle (the libgcrypt 1.10 open/compute/final API), closed when it goes out of scope.

internal import CGcrypt

/// A `gcry_kdf_hd_t` for Argon2, released (and its memory wiped) by `deinit`.
///
/// libgcrypt keeps pointers to the password, salt, secret and associated data until ``final(into:)``, so all of
/// them must stay valid for the handle's whole lifetime.
struct KDFHandle: ~Copyable {
    private let handle: gcry_kdf_hd_t

    /// Opens an Argon2id computation.
    /// - Parameters:
    ///   - parameters: `[tag length, t, m, p]`.
    ///   - password: The password (non-empty).
    ///   - salt: The salt (non-empty).
    ///   - secret: The optional secret key K (may be empty).
    ///   - associatedData: The optional associated data X (may be empty).
    /// - Throws: ``CryptoError`` if libgcrypt refuses.
    ///
    /// The corresponding C function is `gcry_kdf_open`.
    init(
        argon2idParameters parameters: [CUnsignedLong], password: UnsafeRawBufferPointer,
        salt: UnsafeRawBufferPointer, secret: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer
    ) throws {
        try SecretCrypto.ensureInitialized()
        var opened: gcry_kdf_hd_t?
        let error = parameters.withUnsafeBufferPointer { params in
            gcry_kdf_open(
                &opened, cgcry_kdf_argon2, cgcry_kdf_argon2id, params.baseAddress, UInt32(params.count),
                password.baseAddress, password.count, salt.baseAddress, salt.count,
                secret.count > 0 ? secret.baseAddress : nil, secret.count,
                associatedData.count > 0 ? associatedData.baseAddress : nil, associatedData.count)
        }
        try LibgcryptError.check(error, "gcry_kdf_open")
        guard let opened else { throw CryptoError.library(code: -1, source: "gcry_kdf_open") }
        handle = opened
    }

    deinit {
        gcry_kdf_close(handle)
    }

    /// Runs the memory-hard computation on the calling thread (no thread callbacks).
    /// - Throws: ``CryptoError`` on failure.
    ///
    /// The corresponding C function is `gcry_kdf_compute`.
    func compute() throws {
        try LibgcryptError.check(gcry_kdf_compute(handle, nil), "gcry_kdf_compute")
    }

    /// Writes the tag into `output`, whose size must equal the tag length given at open.
    /// - Parameter output: The destination.
    /// - Throws: ``CryptoError`` on failure.
    ///
    /// The corresponding C function is `gcry_kdf_final`.
    func final(into output: UnsafeMutableRawBufferPointer) throws {
        try LibgcryptError.check(gcry_kdf_final(handle, output.count, output.baseAddress), "gcry_kdf_final")
    }
}

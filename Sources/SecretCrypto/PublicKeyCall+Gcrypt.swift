// SPDX-License-Identifier: Apache-2.0
// libgcrypt's public-key functions over owned S-expressions.

internal import CGcrypt

/// The `gcry_pk_*` calls; every argument and result is an ``SExpression``.
enum PublicKeyCall {
    /// Generates a key pair from a `(genkey …)` specification.
    ///
    /// The corresponding C function is `gcry_pk_genkey`.
    static func generate(_ specification: borrowing SExpression) throws -> SExpression {
        try SecretCrypto.ensureInitialized()
        var result: gcry_sexp_t?
        try LibgcryptError.checkSecureOpen(gcry_pk_genkey(&result, specification.raw), "gcry_pk_genkey")
        guard let result else { throw CryptoError.library(code: -1, source: "gcry_pk_genkey") }
        return SExpression(taking: result)
    }

    /// Signs `data` (a `(data …)` list) with a private key.
    ///
    /// The corresponding C function is `gcry_pk_sign`.
    static func sign(_ data: borrowing SExpression, key: borrowing SExpression) throws -> SExpression {
        var result: gcry_sexp_t?
        try LibgcryptError.checkSecureOpen(gcry_pk_sign(&result, data.raw, key.raw), "gcry_pk_sign")
        guard let result else { throw CryptoError.library(code: -1, source: "gcry_pk_sign") }
        return SExpression(taking: result)
    }

    /// Whether `signature` (a `(sig-val …)` list) signs `data` under a public key. A malformed signature or key is
    /// a mismatch, as Apple's verify reports it.
    ///
    /// The corresponding C function is `gcry_pk_verify`.
    static func verify(_ signature: borrowing SExpression, data: borrowing SExpression,
                       key: borrowing SExpression) -> Bool {
        gcry_pk_verify(signature.raw, data.raw, key.raw) == 0
    }

    /// Encrypts `data` (a `(data …)` list) to a public key.
    ///
    /// The corresponding C function is `gcry_pk_encrypt`.
    static func encrypt(_ data: borrowing SExpression, key: borrowing SExpression) throws -> SExpression {
        var result: gcry_sexp_t?
        try LibgcryptError.check(gcry_pk_encrypt(&result, data.raw, key.raw), "gcry_pk_encrypt")
        guard let result else { throw CryptoError.library(code: -1, source: "gcry_pk_encrypt") }
        return SExpression(taking: result)
    }

    /// Decrypts an `(enc-val …)` list with a private key.
    ///
    /// The corresponding C function is `gcry_pk_decrypt`.
    static func decrypt(_ data: borrowing SExpression, key: borrowing SExpression) throws -> SExpression {
        var result: gcry_sexp_t?
        let error = gcry_pk_decrypt(&result, data.raw, key.raw)
        if cgcry_error_code(error) == cgcry_err_enomem { try LibgcryptError.checkSecureOpen(error, "gcry_pk_decrypt") }
        // A wrong key or tampered ciphertext shows as a padding error; it is reported as one kind of failure so
        // callers cannot tell padding from other faults (the basis of padding-oracle attacks).
        guard cgcry_error_code(error) == 0, let result else { throw CryptoError.authenticationFailed }
        return SExpression(taking: result)
    }
}

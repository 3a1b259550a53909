// SPDX-License-Identifier: Apache-2.0
// Turns libgcrypt `gcry_error_t` results into `CryptoError` values.

internal import CGcrypt

/// Helpers for checking libgcrypt return codes.
enum LibgcryptError {
    /// Throws ``CryptoError/library(code:source:)`` when `error` is not success.
    /// - Parameters:
    ///   - error: The value a libgcrypt function returned.
    ///   - source: The name of that function, for the error description.
    /// - Throws: ``CryptoError`` carrying the gpg-error code.
    static func check(_ error: gcry_error_t, _ source: StaticString) throws {
        let code = cgcry_error_code(error)
        if code != 0 {
            throw CryptoError.library(code: code, source: source)
        }
    }

    /// Like ``check(_:_:)`` for a function that allocates a context in the secure pool: running out of memory
    /// there is ``CryptoError/secureMemoryExhausted``, so callers can tell it from a failure of the work itself.
    /// - Parameters:
    ///   - error: The value a libgcrypt function returned.
    ///   - source: The name of that function, for the error description.
    /// - Throws: ``CryptoError``.
    static func checkSecureOpen(_ error: gcry_error_t, _ source: StaticString) throws {
        if cgcry_error_code(error) == cgcry_err_enomem {
            throw CryptoError(.secureMemoryExhausted("the secure memory pool has no room for a context (\(source))"))
        }
        try check(error, source)
    }

    /// The libgcrypt text for an error code.
    ///
    /// The corresponding C function is `gcry_strerror`.
    static func message(_ code: Int32) -> String {
        guard let text = gcry_strerror(gcry_error_t(UInt32(bitPattern: code))) else { return "unknown error" }
        return String(cString: text)
    }
}

// SPDX-License-Identifier: Apache-2.0
// The one error type SecretCrypto throws: a struct over a hidden code, never carrying secret bytes.

/// An error from SecretCrypto.
///
/// Compare against the static members (`CryptoError.invalidPublicKey`, …) with `==`; equality compares the kind
/// of error (and, for ``library(code:source:)``, the code and function), not the explanatory detail.
/// The ``description`` is a human sentence that never contains key material, plaintext or other secret bytes.
public struct CryptoError: Error, CustomStringConvertible, Equatable, Sendable {
    // MARK: - Hidden code

    enum Code: Equatable, Sendable {
        case initialization(String)
        case invalidPublicKey
        case invalidCiphertext
        case invalidPadding
        case invalidIV
        case invalidKey
        case invalidNonce
        case invalidParameter(String)
        case authenticationFailed
        case secureMemoryExhausted(String)
        case library(code: Int32, source: StaticString)

        static func == (lhs: Code, rhs: Code) -> Bool {
            switch (lhs, rhs) {
            case (.initialization, .initialization), (.invalidPublicKey, .invalidPublicKey),
                (.invalidCiphertext, .invalidCiphertext), (.invalidPadding, .invalidPadding),
                (.invalidIV, .invalidIV), (.invalidKey, .invalidKey), (.invalidNonce, .invalidNonce),
                (.invalidParameter, .invalidParameter), (.authenticationFailed, .authenticationFailed),
                (.secureMemoryExhausted, .secureMemoryExhausted):
                return true
            case let (.library(lc, ls), .library(rc, rs)):
                return lc == rc && ls.description == rs.description
            default:
                return false
            }
        }
    }

    let code: Code

    init(_ code: Code) {
        self.code = code
    }

    // MARK: - Public values

    /// libgcrypt could not be initialised (version check failed or bad secure-memory size).
    public static let initialization = CryptoError(.initialization(""))
    /// A Diffie-Hellman public key was empty, longer than the group allows, or outside 2...p-2.
    public static let invalidPublicKey = CryptoError(.invalidPublicKey)
    /// A ciphertext was empty or not a whole number of cipher blocks (or too short to hold a tag).
    public static let invalidCiphertext = CryptoError(.invalidCiphertext)
    /// The PKCS#7 padding of a decrypted message was malformed.
    public static let invalidPadding = CryptoError(.invalidPadding)
    /// An initialisation vector had the wrong length.
    public static let invalidIV = CryptoError(.invalidIV)
    /// A symmetric key had the wrong length.
    public static let invalidKey = CryptoError(.invalidKey)
    /// An AEAD nonce had the wrong length.
    public static let invalidNonce = CryptoError(.invalidNonce)
    /// A parameter (output length, KDF cost, salt, …) was out of the supported range.
    public static let invalidParameter = CryptoError(.invalidParameter(""))
    /// An authentication tag did not match: the data was tampered with or the key is wrong.
    public static let authenticationFailed = CryptoError(.authenticationFailed)
    /// No secure memory was left for a secret or a key: the pool is used up, or a large secret's pages could not be
    /// locked into RAM. Nothing was placed in ordinary memory instead.
    public static let secureMemoryExhausted = CryptoError(.secureMemoryExhausted(""))

    /// A libgcrypt call failed with a gpg-error code.
    /// - Parameters:
    ///   - code: The gpg-error code (`gcry_err_code`).
    ///   - source: The name of the libgcrypt function that failed.
    public static func library(code: Int32, source: StaticString) -> CryptoError {
        CryptoError(.library(code: code, source: source))
    }

    /// The libgcrypt error code, if this error came from a libgcrypt call.
    public var libraryCode: Int32? {
        if case .library(let code, _) = code { return code }
        return nil
    }

    // MARK: - Description

    /// A human sentence describing the error; it never contains secret bytes.
    public var description: String {
        switch code {
        case .initialization(let detail):
            return detail.isEmpty
                ? "libgcrypt could not be initialised." : "libgcrypt could not be initialised: \(detail)."
        case .invalidPublicKey:
            return "The Diffie-Hellman public key is not a valid element of the group."
        case .invalidCiphertext:
            return "The ciphertext has an invalid length."
        case .invalidPadding:
            return "The decrypted data has invalid PKCS#7 padding."
        case .invalidIV:
            return "The initialisation vector has the wrong length."
        case .invalidKey:
            return "The key has the wrong length."
        case .invalidNonce:
            return "The nonce has the wrong length."
        case .invalidParameter(let detail):
            return detail.isEmpty
                ? "A cryptographic parameter is out of range." : "A cryptographic parameter is out of range: \(detail)."
        case .authenticationFailed:
            return "The authentication tag does not match; the data was modified or the key is wrong."
        case .secureMemoryExhausted(let detail):
            return detail.isEmpty ? "Secure memory is used up." : "Secure memory is used up: \(detail)."
        case .library(let code, let source):
            return "libgcrypt call \(source) failed with error \(code) (\(LibgcryptError.message(code)))."
        }
    }
}

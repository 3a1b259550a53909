// SPDX-License-Identifier: Apache-2.0
// SHA-1 digests of public data, for the identifiers Apple's keychain derives from keys and certificates.

import CGcrypt

/// SHA-1, only for identifiers defined with it (a certificate's public-key hash, a key's application label):
/// never for anything that needs collision resistance.
public enum SHA1 {
    /// The length of a SHA-1 digest in bytes.
    public static let byteCount = 20

    /// The SHA-1 digest of `bytes`.
    /// - Parameter bytes: public data.
    /// - Returns: the 20-byte digest.
    /// - Throws: ``CryptoError`` if libgcrypt cannot be initialised.
    ///
    /// The corresponding C function is `gcry_md_hash_buffer`.
    public static func digest(_ bytes: [UInt8]) throws -> [UInt8] {
        try SecretCrypto.ensureInitialized()
        var digest = [UInt8](repeating: 0, count: byteCount)
        digest.withUnsafeMutableBytes { output in
            bytes.withUnsafeBytes { input in
                gcry_md_hash_buffer(Int32(GCRY_MD_SHA1.rawValue), output.baseAddress, input.baseAddress, input.count)
            }
        }
        return digest
    }
}

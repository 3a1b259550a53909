// SPDX-License-Identifier: Apache-2.0
// The SHA family the public-key operations hash with (signatures, OAEP, the X9.63 KDF).

internal import CGcrypt

/// A SHA-1 or SHA-2 digest, as public-key algorithms name them.
public enum DigestAlgorithm: Sendable, CaseIterable {
    case sha1, sha224, sha256, sha384, sha512

    /// The digest length in bytes.
    public var byteCount: Int {
        switch self {
        case .sha1: 20
        case .sha224: 28
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// The name libgcrypt's S-expressions use (`(hash sha256 …)`, `(hash-algo sha256)`).
    var sexpName: String {
        switch self {
        case .sha1: "sha1"
        case .sha224: "sha224"
        case .sha256: "sha256"
        case .sha384: "sha384"
        case .sha512: "sha512"
        }
    }

    /// The `GCRY_MD_*` value.
    var gcryptAlgorithm: Int32 {
        switch self {
        case .sha1: cgcry_md_sha1
        case .sha224: cgcry_md_sha224
        case .sha256: cgcry_md_sha256
        case .sha384: cgcry_md_sha384
        case .sha512: cgcry_md_sha512
        }
    }

    /// The digest of a public message (a message to sign or verify).
    /// - Throws: ``CryptoError`` if libgcrypt fails.
    ///
    /// The corresponding C functions are `gcry_md_open`, `gcry_md_write` and `gcry_md_read`.
    public func digest(_ message: [UInt8]) throws -> [UInt8] {
        let handle = try DigestHandle(algorithm: gcryptAlgorithm, length: byteCount)
        message.withUnsafeBytes { handle.write($0) }
        var output = [UInt8](repeating: 0, count: byteCount)
        try output.withUnsafeMutableBytes { try handle.finish(into: $0) }
        return output
    }

    /// A digest handle for secret input (the X9.63 KDF hashes a shared secret).
    func handle() throws -> DigestHandle {
        try DigestHandle(algorithm: gcryptAlgorithm, length: byteCount)
    }
}

// SPDX-License-Identifier: Apache-2.0
// One-shot SHA-256 and MD5 digests: MD5 only for reading other programs' file formats, SHA-256 for those and for
// the damage check of Coffer's own export archive.

internal import CGcrypt

/// Message digests computed with libgcrypt, their state in secure memory.
///
/// MD5 is here only because gnome-keyring's binary keyring format checks its decrypted block with it; nothing
/// Coffer writes uses MD5.
public enum MessageDigest {
    /// The SHA-256 digest length in bytes.
    public static let sha256ByteCount = 32
    /// The MD5 digest length in bytes.
    public static let md5ByteCount = 16

    /// SHA-256 of `message`.
    /// - Parameter message: the bytes to hash.
    /// - Returns: the 32-byte digest.
    /// - Throws: ``CryptoError`` if libgcrypt fails.
    ///
    /// The corresponding C functions are `gcry_md_open` (`GCRY_MD_SHA256`), `gcry_md_write` and `gcry_md_read`.
    public static func sha256(_ message: [UInt8]) throws -> [UInt8] {
        try digest(cgcry_md_sha256, sha256ByteCount, message)
    }

    /// MD5 of part of a secret buffer (the digest itself is not secret: it is stored in the clear next to it).
    /// - Parameters:
    ///   - message: the buffer.
    ///   - range: the byte range to hash.
    /// - Returns: the 16-byte digest.
    /// - Throws: ``CryptoError`` if libgcrypt fails.
    ///
    /// The corresponding C functions are `gcry_md_open` (`GCRY_MD_MD5`), `gcry_md_write` and `gcry_md_read`.
    public static func md5(of message: SecretBytes, range: Range<Int>) throws -> [UInt8] {
        precondition(range.lowerBound >= 0 && range.upperBound <= message.count)
        let handle = try DigestHandle(algorithm: cgcry_md_md5, length: md5ByteCount)
        message.withUnsafeBytes { handle.write(UnsafeRawBufferPointer(rebasing: $0[range])) }
        var output = [UInt8](repeating: 0, count: md5ByteCount)
        try output.withUnsafeMutableBytes { try handle.finish(into: $0) }
        return output
    }

    private static func digest(_ algorithm: Int32, _ length: Int, _ message: [UInt8]) throws -> [UInt8] {
        let handle = try DigestHandle(algorithm: algorithm, length: length)
        message.withUnsafeBytes { handle.write($0) }
        var output = [UInt8](repeating: 0, count: length)
        try output.withUnsafeMutableBytes { try handle.finish(into: $0) }
        return output
    }
}

// SPDX-License-Identifier: Apache-2.0
// The ANSI X9.63 key derivation function, as Apple's ECDH…X963 and ECIES algorithms use it.

/// ANSI X9.63 KDF (SEC 1 §3.6.1): `Hash(Z ‖ counter ‖ SharedInfo)` for counter = 1, 2, … (32-bit big-endian),
/// concatenated and cut to the requested length.
public enum X963KDF {
    /// Derives `length` bytes from `secret` and `sharedInfo`, in secure memory.
    /// - Throws: ``CryptoError/invalidParameter`` for a negative length.
    ///
    /// The corresponding C functions are `gcry_md_open`, `gcry_md_write` and `gcry_md_read`.
    public static func derive(_ secret: SecretBytes, sharedInfo: [UInt8], length: Int,
                              digest: DigestAlgorithm) throws -> SecretBytes {
        guard length >= 0 else { throw CryptoError(.invalidParameter("negative KDF output length")) }
        let output = try SecretBytes(count: length)
        let block = try SecretBytes(count: digest.byteCount)
        let handle = try digest.handle()
        var counter: UInt32 = 1
        var offset = 0
        while offset < length {
            handle.reset()
            secret.withUnsafeBytes { handle.write($0) }
            withUnsafeBytes(of: counter.bigEndian) { handle.write($0) }
            sharedInfo.withUnsafeBytes { handle.write($0) }
            try block.withUnsafeMutableBytes { try handle.finish(into: $0) }
            let take = min(digest.byteCount, length - offset)
            output.withUnsafeMutableBytes { out in
                block.withUnsafeBytes { (out.baseAddress! + offset).copyMemory(from: $0.baseAddress!, byteCount: take) }
            }
            offset += take
            counter += 1
        }
        return output
    }
}

// SPDX-License-Identifier: Apache-2.0
// RFC 5869 HKDF with HMAC-SHA256, built on libgcrypt's MAC API.

/// HMAC-based key derivation (RFC 5869).
public enum HKDF {
    /// The SHA-256 output length (HashLen) in bytes.
    static let hashLength = MACHandle.sha256Length

    /// Derives key material with HKDF-SHA256 (RFC 5869 extract-then-expand).
    ///
    /// Implemented on libgcrypt HMAC-SHA256; the pseudorandom key and every intermediate block stay in secure memory.
    /// - Parameters:
    ///   - inputKeyMaterial: The secret input (IKM), for example the padded Diffie-Hellman shared secret.
    ///   - salt: The optional salt; empty means HashLen (32) zero bytes, as RFC 5869 §2.2 specifies.
    ///   - info: Context and application-specific information (may be empty).
    ///   - outputByteCount: The number of bytes to produce (L), `0...8160` (255 × HashLen).
    /// - Returns: The output keying material (OKM).
    /// - Throws: ``CryptoError/invalidParameter`` if `outputByteCount` is out of range, or a libgcrypt error.
    public static func sha256(
        inputKeyMaterial: SecretBytes, salt: [UInt8], info: [UInt8], outputByteCount: Int
    ) throws -> SecretBytes {
        guard (0...(255 * hashLength)).contains(outputByteCount) else {
            throw CryptoError(.invalidParameter("HKDF-SHA256 output length must be at most 8160 bytes"))
        }
        let pseudorandomKey = try extract(inputKeyMaterial: inputKeyMaterial, salt: salt)
        return try expand(pseudorandomKey: pseudorandomKey, info: info, outputByteCount: outputByteCount)
    }

    // MARK: - RFC 5869 steps

    /// HKDF-Extract: PRK = HMAC-Hash(salt, IKM).
    static func extract(inputKeyMaterial: SecretBytes, salt: [UInt8]) throws -> SecretBytes {
        let saltKey = salt.isEmpty ? [UInt8](repeating: 0, count: hashLength) : salt
        let mac = try MACHandle(hmacSHA256Key: saltKey)
        try inputKeyMaterial.withUnsafeBytes { try mac.write($0) }
        let pseudorandomKey = try SecretBytes(count: hashLength)
        try pseudorandomKey.withUnsafeMutableBytes { try mac.read(into: $0) }
        return pseudorandomKey
    }

    /// HKDF-Expand: T(i) = HMAC-Hash(PRK, T(i-1) | info | i), OKM = first L bytes of T(1) | T(2) | ….
    private static func expand(
        pseudorandomKey: SecretBytes, info: [UInt8], outputByteCount: Int
    ) throws -> SecretBytes {
        let output = try SecretBytes(count: outputByteCount)
        let block = try SecretBytes(count: hashLength)
        var produced = 0
        var counter: UInt8 = 1
        while produced < outputByteCount {
            let mac = try MACHandle(hmacSHA256Key: pseudorandomKey)
            if counter > 1 {
                try block.withUnsafeBytes { try mac.write($0) }
            }
            try info.withUnsafeBytes { try mac.write($0) }
            try withUnsafeBytes(of: counter) { try mac.write($0) }
            try block.withUnsafeMutableBytes { try mac.read(into: $0) }
            let take = min(hashLength, outputByteCount - produced)
            block.withUnsafeBytes { source in
                output.withUnsafeMutableBytes { target in
                    target.baseAddress!.advanced(by: produced).copyMemory(from: source.baseAddress!, byteCount: take)
                }
            }
            produced += take
            counter &+= 1
        }
        return output
    }
}

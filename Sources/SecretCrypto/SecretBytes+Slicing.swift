// SPDX-License-Identifier: Apache-2.0
// Copying part of a secret buffer into a new secret buffer, so parsers never stage secrets in ordinary arrays.

extension SecretBytes {
    /// A new buffer holding a copy of `range`.
    /// - Parameter range: a range inside `0..<count`.
    /// - Returns: the copy, in secure memory.
    /// - Throws: ``CryptoError/secureMemoryExhausted`` when no secure memory is left for it.
    public func copying(_ range: Range<Int>) throws(CryptoError) -> SecretBytes {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "SecretBytes range out of bounds")
        return try withUnsafeBytes { (bytes) throws(CryptoError) in
            try SecretBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[range]))
        }
    }

    /// A new buffer holding a copy of raw bytes (for example a slice of a decrypted buffer).
    /// - Parameter bytes: the bytes to copy.
    /// - Returns: the copy, in secure memory.
    /// - Throws: ``CryptoError/secureMemoryExhausted`` when no secure memory is left for it.
    public static func copy(of bytes: UnsafeRawBufferPointer) throws(CryptoError) -> SecretBytes {
        try SecretBytes(copying: bytes)
    }
}

// SPDX-License-Identifier: Apache-2.0
// A byte buffer for keys and plaintext, held in libgcrypt secure memory and wiped on release.

internal import CGcrypt

/// A buffer for secret bytes (keys, passwords, decrypted secrets).
///
/// The bytes live in secure memory: libgcrypt's pool (sized by ``SecretCrypto/initialize(secureMemoryBytes:)``) for
/// small buffers, locked pages of their own for large ones. Creating a buffer when no secure memory is left throws
/// ``CryptoError/secureMemoryExhausted``; the bytes never go to ordinary, swappable memory instead. They are zeroed
/// when the object is released. The contents are never printed: ``description`` and ``debugDescription`` are
/// `"<redacted>"`.
///
/// The type is a reference type so that the bytes are never silently copied. Share a `SecretBytes` across tasks
/// only for reading; mutate it through ``withUnsafeMutableBytes(_:)`` before handing it on.
public final class SecretBytes: @unchecked Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    // @unchecked Sendable: the owned pointer never changes; concurrent mutation is excluded by the documented contract.

    // MARK: - Storage

    private let region: SecureMemory.Region
    private var pointer: UnsafeMutableRawPointer { region.base }

    /// The number of bytes.
    public let count: Int

    /// Whether the buffer is in libgcrypt's pool or in pages of its own, the two places ``SecureMemory`` hands out;
    /// tests check the allocator with it.
    ///
    /// The corresponding C function is `gcry_is_secure`.
    var isInSecureMemory: Bool { region.isMapping || gcry_is_secure(pointer) != 0 }

    // MARK: - Initialisers

    /// Creates a zero-filled buffer.
    /// - Parameter count: The number of bytes; must not be negative.
    /// - Throws: ``CryptoError/secureMemoryExhausted`` when no secure memory is left for it.
    ///
    /// The corresponding C function is `gcry_malloc_secure`.
    public init(count: Int) throws(CryptoError) {
        precondition(count >= 0, "SecretBytes count must not be negative")
        SecretCrypto.ensureInitializedOrTrap()
        region = try SecureMemory.allocate(max(count, 1))
        self.count = count
        region.base.initializeMemory(as: UInt8.self, repeating: 0, count: region.size)
    }

    /// Creates a buffer holding a copy of `bytes`.
    /// - Parameter bytes: The bytes to copy. The caller remains responsible for wiping its own copy.
    /// - Throws: ``CryptoError/secureMemoryExhausted`` when no secure memory is left for it.
    public convenience init<C: Collection>(copying bytes: C) throws(CryptoError) where C.Element == UInt8 {
        try self.init(count: bytes.count)
        let copied: Void? = bytes.withContiguousStorageIfAvailable { source in
            if let base = source.baseAddress, source.count > 0 {
                pointer.copyMemory(from: base, byteCount: source.count)
            }
        }
        if copied == nil && count > 0 {
            let target = pointer.assumingMemoryBound(to: UInt8.self)
            for (offset, byte) in bytes.enumerated() {
                target[offset] = byte
            }
        }
    }

    /// Creates a buffer holding a copy of raw memory (internal: avoids an intermediate array).
    convenience init(copying buffer: UnsafeRawBufferPointer) throws(CryptoError) {
        try self.init(count: buffer.count)
        if let base = buffer.baseAddress, buffer.count > 0 {
            pointer.copyMemory(from: base, byteCount: buffer.count)
        }
    }

    deinit {
        SecureMemory.release(region)
    }

    // MARK: - Access

    /// Whether the buffer holds no bytes.
    public var isEmpty: Bool { count == 0 }

    /// Calls `body` with read access to the bytes. Do not let the pointer escape.
    /// - Parameter body: A closure receiving the bytes.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Calls `body` with write access to the bytes. Do not let the pointer escape.
    /// - Parameter body: A closure receiving the bytes.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func withUnsafeMutableBytes<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R)
        throws(E) -> R {
        try body(UnsafeMutableRawBufferPointer(start: pointer, count: count))
    }

    /// Copies the contents into an ordinary array (for putting on the wire).
    ///
    /// The array is ordinary, unwiped memory: avoid this for plaintext where possible.
    /// - Returns: The bytes.
    public func copyBytes() -> [UInt8] {
        [UInt8](UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Compares two buffers in time that depends only on their lengths, not their contents.
    /// - Parameter other: The buffer to compare with.
    /// - Returns: `true` when both have the same length and bytes.
    public func constantTimeEquals(_ other: SecretBytes) -> Bool {
        guard count == other.count else { return false }
        return withUnsafeBytes { lhs in
            other.withUnsafeBytes { rhs in ConstantTime.equals(lhs, rhs) }
        }
    }

    // MARK: - Wiping

    /// Zeroes every byte now rather than at release, for a secret that is no longer needed in a buffer that lives
    /// on. The optimiser may not drop the write.
    ///
    /// The corresponding C function is `explicit_bzero`.
    public func wipe() {
        cgcry_wipe(pointer, region.size)
    }

    /// Zeroes the bytes in `range` now (bytes a reader has consumed while the rest stays in use).
    /// - Parameter range: offsets within `0..<count`.
    ///
    /// The corresponding C function is `explicit_bzero`.
    public func wipe(_ range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "SecretBytes.wipe: range out of bounds")
        cgcry_wipe(pointer + range.lowerBound, range.count)
    }

    // MARK: - Redaction

    /// Always `"<redacted>"`: secrets are never printed.
    public var description: String { "<redacted>" }

    /// Always `"<redacted>"`: secrets are never printed.
    public var debugDescription: String { "<redacted>" }
}

// SPDX-License-Identifier: Apache-2.0
// A bounds-checked reader over borrowed bytes for gnome-keyring's big-endian binary encoding.

/// Reads gnome-keyring's binary encoding (big-endian `uint32`s, length-prefixed strings) from a borrowed buffer.
///
/// Every read checks the remaining length first and throws ``KeyringFileError/truncated(_:)`` instead of reading
/// past the end. Use it only inside the `withUnsafeBytes` scope that owns `bytes`.
struct ByteCursor {
    /// The length gnome-keyring writes for a NULL string or byte array.
    static let nullLength: UInt32 = 0xFFFF_FFFF

    let bytes: UnsafeRawBufferPointer
    private(set) var offset: Int

    init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var remaining: Int { bytes.count - offset }

    mutating func uint8(_ what: String) throws -> UInt8 {
        guard remaining >= 1 else { throw KeyringFileError.truncated(what) }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint32(_ what: String) throws -> UInt32 {
        guard remaining >= 4 else { throw KeyringFileError.truncated(what) }
        defer { offset += 4 }
        return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }

    mutating func uint64(_ what: String) throws -> UInt64 {
        let high = UInt64(try uint32(what))
        return high << 32 | UInt64(try uint32(what))
    }

    /// A time as gnome-keyring stores it: two `uint32`s, high word first.
    mutating func time(_ what: String) throws -> UInt64 { try uint64(what) }

    /// The range of the next `count` bytes, which the cursor skips.
    mutating func range(count: Int, _ what: String) throws -> Range<Int> {
        guard count >= 0, remaining >= count else { throw KeyringFileError.truncated(what) }
        defer { offset += count }
        return offset..<(offset + count)
    }

    /// A length-prefixed byte array; `nil` for the NULL marker.
    mutating func byteArray(_ what: String) throws -> Range<Int>? {
        let length = try uint32(what)
        if length == Self.nullLength { return nil }
        return try range(count: Int(length), what)
    }

    /// A length-prefixed UTF-8 string; `nil` for the NULL marker.
    ///
    /// gnome-keyring treats the stored bytes as a C string, so a NUL ends the text there; the bytes before it must
    /// be valid UTF-8, as gnome-keyring requires.
    mutating func string(_ what: String) throws -> String? {
        guard let range = try byteArray(what) else { return nil }
        let raw = UnsafeRawBufferPointer(rebasing: bytes[range])
        let text = raw.firstIndex(of: 0).map { UnsafeRawBufferPointer(rebasing: raw[..<$0]) } ?? raw
        guard let string = String(validating: text, as: UTF8.self) else {
            throw KeyringFileError.malformed("\(what) is not valid UTF-8")
        }
        return string
    }

    /// Skips `count` `uint32`s (reserved fields).
    mutating func skipUInt32s(_ count: Int, _ what: String) throws {
        _ = try range(count: 4 * count, what)
    }
}

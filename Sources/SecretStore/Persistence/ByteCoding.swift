// SPDX-License-Identifier: Apache-2.0
// Big-endian binary writing and bounds-checked reading for the collection file format.

/// Appends big-endian integers, byte strings and length-prefixed strings.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 64) { bytes.reserveCapacity(capacity) }

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u16(_ value: UInt16) { append(value) }
    mutating func u32(_ value: UInt32) { append(value) }
    mutating func u64(_ value: UInt64) { append(value) }
    mutating func raw(_ value: [UInt8]) { bytes += value }

    /// A UTF-8 string with a `u16` length.
    mutating func string(_ value: String) {
        let utf8 = Array(value.utf8)
        precondition(utf8.count <= Int(UInt16.max), "string too long for the format")
        u16(UInt16(utf8.count))
        bytes += utf8
    }

    /// A byte string with a `u32` length.
    mutating func blob(_ value: [UInt8]) {
        u32(UInt32(value.count))
        bytes += value
    }

    private mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { bytes += $0 }
    }
}

/// Why a collection file could not be read.
struct FormatError: Error, CustomStringConvertible, Equatable {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Reads what ``ByteWriter`` wrote, failing with ``FormatError`` instead of trapping on short or malformed input.
struct ByteReader {
    private let bytes: ArraySlice<UInt8>
    private(set) var offset: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        offset = bytes.startIndex
    }

    var isAtEnd: Bool { offset == bytes.endIndex }
    var remaining: Int { bytes.endIndex - offset }

    mutating func u8() throws(FormatError) -> UInt8 { try integer() }
    mutating func u16() throws(FormatError) -> UInt16 { try integer() }
    mutating func u32() throws(FormatError) -> UInt32 { try integer() }
    mutating func u64() throws(FormatError) -> UInt64 { try integer() }

    mutating func raw(_ count: Int) throws(FormatError) -> [UInt8] {
        guard count >= 0, remaining >= count else { throw FormatError("truncated data") }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    mutating func string() throws(FormatError) -> String {
        let count = Int(try u16())
        guard let text = String(validating: try raw(count), as: UTF8.self) else {
            throw FormatError("invalid UTF-8")
        }
        return text
    }

    mutating func blob(maximum: Int) throws(FormatError) -> [UInt8] {
        let count = Int(try u32())
        guard count <= maximum else { throw FormatError("oversized field") }
        return try raw(count)
    }

    private mutating func integer<T: FixedWidthInteger>() throws(FormatError) -> T {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { throw FormatError("truncated data") }
        var value: T = 0
        for byte in bytes[offset..<offset + size] { value = value << 8 | T(byte) }
        offset += size
        return value
    }
}

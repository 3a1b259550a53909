// SPDX-License-Identifier: Apache-2.0
// Big-endian writing and bounds-checked reading for the journal format (docs/SYNC.md).

/// Why bytes from the folder could not be decoded, or a value could not be encoded.
public struct SyncFormatError: Error, CustomStringConvertible, Equatable, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Appends big-endian integers, raw bytes and length-prefixed strings.
struct SyncByteWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 64) { bytes.reserveCapacity(capacity) }

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u16(_ value: UInt16) { append(value) }
    mutating func u32(_ value: UInt32) { append(value) }
    mutating func u64(_ value: UInt64) { append(value) }
    mutating func raw(_ value: some Sequence<UInt8>) { bytes += value }

    /// A UTF-8 string with a `u16` length.
    /// - Throws: ``SyncFormatError`` for a string longer than 65,535 bytes (the caller's input, never a trap).
    mutating func string(_ value: String, what: String) throws(SyncFormatError) {
        let utf8 = Array(value.utf8)
        guard let count = UInt16(exactly: utf8.count) else { throw SyncFormatError("\(what) is longer than 65535 bytes") }
        u16(count)
        bytes += utf8
    }

    private mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { bytes += $0 }
    }
}

/// Reads what ``SyncByteWriter`` wrote from an array slice or from secure memory, failing with
/// ``SyncFormatError`` instead of trapping on short or malformed input.
struct SyncByteReader<Bytes: RandomAccessCollection> where Bytes.Element == UInt8, Bytes.Index == Int {
    private let bytes: Bytes
    private(set) var offset: Int

    init(_ bytes: Bytes) {
        self.bytes = bytes
        offset = bytes.startIndex
    }

    var isAtEnd: Bool { offset == bytes.endIndex }
    var remaining: Int { bytes.endIndex - offset }

    mutating func u8() throws(SyncFormatError) -> UInt8 { try integer() }
    mutating func u16() throws(SyncFormatError) -> UInt16 { try integer() }
    mutating func u32() throws(SyncFormatError) -> UInt32 { try integer() }
    mutating func u64() throws(SyncFormatError) -> UInt64 { try integer() }

    mutating func raw(_ count: Int) throws(SyncFormatError) -> [UInt8] {
        Array(try range(count).map { bytes[$0] })
    }

    /// Skips `count` bytes and returns where they lie, for fields copied elsewhere (a secret into secure memory).
    mutating func range(_ count: Int) throws(SyncFormatError) -> Range<Int> {
        guard count >= 0, remaining >= count else { throw SyncFormatError("truncated data") }
        defer { offset += count }
        return offset..<offset + count
    }

    mutating func string() throws(SyncFormatError) -> String {
        let span = try range(Int(try u16()))
        guard let text = String(validating: bytes[span], as: UTF8.self) else { throw SyncFormatError("invalid UTF-8") }
        return text
    }

    mutating func identifier() throws(SyncFormatError) -> SyncIdentifier {
        SyncIdentifier(bytes: try raw(SyncIdentifier.byteCount))!
    }

    private mutating func integer<T: FixedWidthInteger>() throws(SyncFormatError) -> T {
        var value: T = 0
        for index in try range(MemoryLayout<T>.size) { value = value << 8 | T(bytes[index]) }
        return value
    }
}

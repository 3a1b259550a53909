// SPDX-License-Identifier: Apache-2.0
// D-Bus wire bytes to DBusValues, read directly instead of one library call per value.

/// Reads values in the D-Bus marshalling format, in either byte order.
///
/// Meant for bytes the receiving library has already validated (string contents, object path syntax, padding):
/// the reader relies on that for meaning, but checks every length and offset itself, so no input makes it read out
/// of bounds or recurse without limit. Offsets are counted from the start of the buffer, which must sit at an
/// 8-aligned offset of its message (a body does).
public struct WireReader: ~Copyable {
    /// The deepest nesting of containers and variants read (libdbus accepts 64 in a body).
    public static let maximumDepth = 64

    /// The longest array the specification allows, in bytes.
    public static let maximumArrayLength = 64 << 20

    private let buffer: UnsafeRawBufferPointer
    private let swapped: Bool
    /// The offset of the next byte to read.
    public private(set) var offset = 0

    /// A reader over `buffer`, written big-endian when `bigEndian` (the message's first byte is `B`), starting at
    /// `offset`.
    public init(_ buffer: UnsafeRawBufferPointer, bigEndian: Bool, offset: Int = 0) {
        self.buffer = buffer
        self.swapped = bigEndian != (1.bigEndian == 1)
        self.offset = offset
    }

    /// Reads one value of each of `types`, which must fill the buffer exactly (a message body).
    public static func readBody(_ buffer: UnsafeRawBufferPointer, types: [DBusType],
                                bigEndian: Bool) -> [DBusValue]? {
        var reader = WireReader(buffer, bigEndian: bigEndian)
        var values: [DBusValue] = []
        values.reserveCapacity(types.count)
        for type in types {
            guard let value = reader.read(type, depth: 0) else { return nil }
            values.append(value)
        }
        return reader.offset == buffer.count ? values : nil
    }

    /// The value of type `type` at the current offset (after its alignment padding), or `nil` when the bytes do not
    /// hold one.
    public mutating func read(_ type: DBusType, depth: Int) -> DBusValue? {
        switch type {
        case .byte: return byte().map(DBusValue.byte)
        case .boolean:
            guard let raw = integer(UInt32.self), raw <= 1 else { return nil }
            return .boolean(raw == 1)
        case .int16: return integer(UInt16.self).map { .int16(Int16(bitPattern: $0)) }
        case .uint16: return integer(UInt16.self).map(DBusValue.uint16)
        case .int32: return integer(UInt32.self).map { .int32(Int32(bitPattern: $0)) }
        case .uint32: return integer(UInt32.self).map(DBusValue.uint32)
        case .int64: return integer(UInt64.self).map { .int64(Int64(bitPattern: $0)) }
        case .uint64: return integer(UInt64.self).map(DBusValue.uint64)
        case .double: return integer(UInt64.self).map { .double(Double(bitPattern: $0)) }
        case .unixFD:
            // The bytes hold an index into descriptors that travel beside them, never a descriptor: read as -1 (as
            // libdbus reads an index with nothing behind it), never as a number some open file may have.
            return integer(UInt32.self).map { _ in .unixFD(UnixFileDescriptor(rawValue: -1)) }
        case .string: return text().map(DBusValue.string)
        case .objectPath: return text().map { .objectPath(ObjectPath(unchecked: $0)) }
        case .signature: return signatureText().flatMap { Signature($0) }.map(DBusValue.signature)
        case .variant:
            guard depth < Self.maximumDepth, let inner = variantType(), let value = read(inner, depth: depth + 1)
            else { return nil }
            return .variant(value)
        case .array(.byte):
            guard let end = arrayEnd(alignment: 1, depth: depth) else { return nil }
            let payload = Array(buffer[offset..<end])
            offset = end
            return .bytes(payload)
        case .array(let element):
            guard let end = arrayEnd(alignment: element.wireAlignment, depth: depth) else { return nil }
            var values: [DBusValue] = []
            while offset < end {
                guard let value = read(element, depth: depth + 1) else { return nil }
                values.append(value)
            }
            return offset == end ? .array(element, values) : nil
        case .dictionary(let key, let valueType):
            guard let end = arrayEnd(alignment: 8, depth: depth + 1) else { return nil }
            var entries: [DictEntry] = []
            // Most maps are property or attribute maps of a few entries: one allocation instead of several.
            entries.reserveCapacity(8)
            while offset < end {
                guard skipPadding(8), let k = read(key, depth: depth + 2), let v = read(valueType, depth: depth + 2)
                else { return nil }
                entries.append(DictEntry(k, v))
            }
            return offset == end ? .dictionary(key: key, value: valueType, entries) : nil
        case .structure(let fields):
            guard depth < Self.maximumDepth, skipPadding(8) else { return nil }
            var values: [DBusValue] = []
            values.reserveCapacity(fields.count)
            for field in fields {
                guard let value = read(field, depth: depth + 1) else { return nil }
                values.append(value)
            }
            return .structure(values)
        }
    }

    // MARK: - Pieces

    /// Moves past the padding up to the next multiple of `boundary`; `false` when the buffer ends first.
    private mutating func skipPadding(_ boundary: Int) -> Bool {
        let next = (offset + boundary - 1) / boundary * boundary
        guard next <= buffer.count else { return false }
        offset = next
        return true
    }

    private mutating func byte() -> UInt8? {
        guard offset < buffer.count else { return nil }
        defer { offset += 1 }
        return buffer[offset]
    }

    /// A fixed-size integer at its natural alignment, in the message's byte order.
    private mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
        let size = MemoryLayout<T>.size
        guard skipPadding(size), buffer.count - offset >= size else { return nil }
        let raw = buffer.loadUnaligned(fromByteOffset: offset, as: T.self)
        offset += size
        return swapped ? raw.byteSwapped : raw
    }

    /// A string or object path: length, UTF-8 bytes, NUL.
    private mutating func text() -> String? {
        guard let length = integer(UInt32.self).map(Int.init), length < buffer.count - offset,
              buffer[offset + length] == 0 else { return nil }
        let utf8 = UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + length])
        offset += length + 1
        return String(decoding: utf8, as: UTF8.self)
    }

    /// The characters of a signature value (one length byte, the characters, NUL).
    private mutating func signatureCharacters() -> UnsafeRawBufferPointer? {
        guard let length = byte().map(Int.init), length < buffer.count - offset, buffer[offset + length] == 0
        else { return nil }
        let characters = UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + length])
        offset += length + 1
        return characters
    }

    private mutating func signatureText() -> String? {
        signatureCharacters().map { String(decoding: $0, as: UTF8.self) }
    }

    /// The one complete type a variant's signature names. The types variants most often hold (a basic value, an
    /// attribute or property map, a list of paths, names or bytes) are known without building and parsing the
    /// signature text.
    private mutating func variantType() -> DBusType? {
        guard let characters = signatureCharacters() else { return nil }
        if characters.count == 1, let basic = DBusType(basicCode: characters[0]) { return basic }
        if characters.count == 2, characters[0] == UInt8(ascii: "a"), let basic = DBusType(basicCode: characters[1]) {
            return .array(basic)
        }
        if characters.count == 5, characters[0] == UInt8(ascii: "a"), characters[1] == UInt8(ascii: "{"),
           characters[4] == UInt8(ascii: "}"), let key = DBusType(basicCode: characters[2]), key.isBasic,
           let value = DBusType(basicCode: characters[3]) {
            return .dictionary(key: key, value: value)
        }
        guard let types = Signature(String(decoding: characters, as: UTF8.self))?.types, types.count == 1
        else { return nil }
        return types[0]
    }

    /// Reads an array's length and the padding before its first element; the offset where the array ends.
    mutating func arrayEnd(alignment: Int, depth: Int) -> Int? {
        guard depth < Self.maximumDepth, let length = integer(UInt32.self).map(Int.init),
              length <= Self.maximumArrayLength, skipPadding(alignment), length <= buffer.count - offset
        else { return nil }
        return offset + length
    }
}

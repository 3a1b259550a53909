// SPDX-License-Identifier: Apache-2.0
// DBusValues to D-Bus wire bytes (little-endian), written directly instead of one library call per value.

/// Writes values in the D-Bus marshalling format, little-endian.
///
/// Offsets are counted from the start of ``bytes``, which must start at an 8-aligned offset of the message (a body
/// does), so every alignment comes out as the specification requires. The writer checks that each value has the type
/// its container declares; what only the receiving side's validation sees (a NUL inside a string, a malformed
/// object path, nesting past the limits, an over-long array) is left to the parse that follows (see
/// `MessageEncoder`), which runs the full check of every received message.
public struct WireWriter {
    /// Why a body could not be written.
    public enum Failure: Error, Equatable {
        /// A value does not have the type its array, dictionary or the signature declares.
        case typeMismatch
        /// The body holds a Unix file descriptor, which travels beside the bytes and needs the library's own path.
        case carriesDescriptors
    }

    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// Appends `values`, each of the type its own case says (a message body).
    public mutating func write(body values: [DBusValue]) throws(Failure) {
        for value in values { try write(value, as: value.type) }
    }

    /// Appends `value`, which must have type `type`.
    public mutating func write(_ value: DBusValue, as type: DBusType) throws(Failure) {
        switch (value, type) {
        case (.byte(let v), .byte): bytes.append(v)
        case (.boolean(let v), .boolean): append(UInt32(v ? 1 : 0))
        case (.int16(let v), .int16): append(UInt16(bitPattern: v))
        case (.uint16(let v), .uint16): append(v)
        case (.int32(let v), .int32): append(UInt32(bitPattern: v))
        case (.uint32(let v), .uint32): append(v)
        case (.int64(let v), .int64): append(UInt64(bitPattern: v))
        case (.uint64(let v), .uint64): append(v)
        case (.double(let v), .double): append(v.bitPattern)
        case (.string(let text), .string): writeText(text)
        case (.objectPath(let path), .objectPath): writeText(path.rawValue)
        case (.signature(let signature), .signature): writeSignature(signature.rawValue)
        case (.unixFD, .unixFD): throw .carriesDescriptors
        case (.bytes(let payload), .array(.byte)):
            align(4)
            append(UInt32(truncatingIfNeeded: payload.count))
            bytes.append(contentsOf: payload)
        case (.array(let element, let values), .array(let expected)):
            guard element == expected else { throw .typeMismatch }
            try writeArray(alignment: element.wireAlignment) { (writer: inout WireWriter) throws(Failure) in
                for item in values { try writer.write(item, as: element) }
            }
        case (.dictionary(let key, let valueType, let entries), .dictionary(let expectedKey, let expectedValue)):
            guard key == expectedKey, valueType == expectedValue else { throw .typeMismatch }
            try writeArray(alignment: 8) { (writer: inout WireWriter) throws(Failure) in
                for entry in entries {
                    writer.align(8)
                    try writer.write(entry.key, as: key)
                    try writer.write(entry.value, as: valueType)
                }
            }
        case (.structure(let fields), .structure(let expected)):
            guard fields.count == expected.count else { throw .typeMismatch }
            align(8)
            for (field, fieldType) in zip(fields, expected) { try write(field, as: fieldType) }
        case (.variant(let inner), .variant):
            let innerType = inner.type
            writeSignature(of: innerType)
            try write(inner, as: innerType)
        default:
            throw .typeMismatch
        }
    }

    // MARK: - Pieces

    /// Pads with zero bytes up to the next multiple of `boundary` (1, 2, 4 or 8).
    mutating func align(_ boundary: Int) {
        let padding = (boundary - bytes.count % boundary) % boundary
        for _ in 0..<padding { bytes.append(0) }
    }

    /// Bytes as they are, with no alignment.
    mutating func append(contentsOf raw: [UInt8]) {
        bytes.append(contentsOf: raw)
    }

    /// Overwrites four bytes at `offset` with `value` (a length known only after what it counts was written).
    mutating func patch(_ value: UInt32, at offset: Int) {
        withUnsafeBytes(of: value.littleEndian) { raw in
            for index in 0..<4 { bytes[offset + index] = raw[index] }
        }
    }

    /// A fixed-size integer at its natural alignment.
    mutating func append<T: FixedWidthInteger>(_ value: T) {
        align(MemoryLayout<T>.size)
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A string or object path: length, UTF-8 bytes, NUL.
    mutating func writeText(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            append(UInt32(truncatingIfNeeded: utf8.count))
            bytes.append(contentsOf: utf8)
        }
        bytes.append(0)
    }

    /// A signature value from its text: one length byte, the characters, NUL.
    mutating func writeSignature(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            bytes.append(UInt8(truncatingIfNeeded: utf8.count))
            bytes.append(contentsOf: utf8)
        }
        bytes.append(0)
    }

    /// The signature of a sequence of types (a message body's) as a signature value.
    mutating func writeSignature(_ types: some Collection<DBusType>) {
        let lengthAt = bytes.count
        bytes.append(0)
        for type in types { appendCodes(of: type) }
        bytes[lengthAt] = UInt8(truncatingIfNeeded: bytes.count - lengthAt - 1)
        bytes.append(0)
    }

    /// The signature of `type` as a signature value, written without building its text first (each variant has
    /// one, and most hold a basic value or a small map).
    mutating func writeSignature(of type: DBusType) {
        writeSignature(CollectionOfOne(type))
    }

    private mutating func appendCodes(of type: DBusType) {
        switch type {
        case .array(let element):
            bytes.append(UInt8(ascii: "a"))
            appendCodes(of: element)
        case .dictionary(let key, let value):
            bytes.append(contentsOf: [UInt8(ascii: "a"), UInt8(ascii: "{")])
            appendCodes(of: key)
            appendCodes(of: value)
            bytes.append(UInt8(ascii: "}"))
        case .structure(let fields):
            bytes.append(UInt8(ascii: "("))
            for field in fields { appendCodes(of: field) }
            bytes.append(UInt8(ascii: ")"))
        default:
            bytes.append(type.basicCode)
        }
    }

    /// An array: its byte length, padding to the elements' alignment (not counted in the length), the elements.
    mutating func writeArray(alignment: Int,
                                     _ elements: (inout WireWriter) throws(Failure) -> Void) throws(Failure) {
        align(4)
        let lengthAt = bytes.count
        bytes.append(contentsOf: [0, 0, 0, 0])
        align(alignment)
        let start = bytes.count
        try elements(&self)
        patch(UInt32(truncatingIfNeeded: bytes.count - start), at: lengthAt)
    }
}

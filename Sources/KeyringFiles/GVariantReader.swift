// SPDX-License-Identifier: Apache-2.0
// A minimal, bounds-checked reader for GVariant's serialization format (the types libsecret's file keyring uses).

/// The GVariant types the libsecret file format needs.
indirect enum GVariantType: Equatable, Sendable {
    case byte  // y
    case uint32  // u
    case uint64  // t
    case string  // s
    case array(GVariantType)  // a…
    case tuple([GVariantType])  // (…)
    case dictEntry(GVariantType, GVariantType)  // {…}

    /// The alignment in bytes (1, 4 or 8).
    var alignment: Int {
        switch self {
        case .byte, .string: return 1
        case .uint32: return 4
        case .uint64: return 8
        case .array(let element): return element.alignment
        case .tuple(let members): return members.map(\.alignment).max() ?? 1
        case .dictEntry(let key, let value): return max(key.alignment, value.alignment)
        }
    }

    /// The serialized size of a fixed-size type, `nil` for variable-size types.
    var fixedSize: Int? {
        switch self {
        case .byte: return 1
        case .uint32: return 4
        case .uint64: return 8
        case .string, .array: return nil
        case .tuple(let members): return Self.fixedSize(of: members, alignment: alignment)
        case .dictEntry(let key, let value): return Self.fixedSize(of: [key, value], alignment: alignment)
        }
    }

    private static func fixedSize(of members: [GVariantType], alignment: Int) -> Int? {
        var size = 0
        for member in members {
            guard let fixed = member.fixedSize else { return nil }
            size = align(size, member.alignment) + fixed
        }
        return size == 0 ? 1 : align(size, alignment)  // the unit tuple takes one byte
    }

    var members: [GVariantType] {
        switch self {
        case .tuple(let members): return members
        case .dictEntry(let key, let value): return [key, value]
        default: return []
        }
    }
}

/// A decoded value. Byte arrays stay as ranges into the source buffer so secrets are copied only into secure memory.
enum GVariantValue: Equatable, Sendable {
    case byte(UInt8)
    case uint32(UInt32)
    case uint64(UInt64)
    case string(String)
    case bytes(Range<Int>)
    case array([GVariantValue])
    case tuple([GVariantValue])
}

func align(_ offset: Int, _ alignment: Int) -> Int { (offset + alignment - 1) & ~(alignment - 1) }

/// Decodes little-endian GVariant data in normal form. Anything out of bounds or not in normal form (wrong
/// fixed sizes, offsets past the end, unterminated strings, invalid UTF-8) throws ``KeyringFileError/malformed(_:)``;
/// the work is linear in the input, and nesting is bounded by the static type.
struct GVariantReader {
    let bytes: UnsafeRawBufferPointer

    /// Decodes the value of `type` occupying `range`.
    func decode(_ type: GVariantType, _ range: Range<Int>) throws -> GVariantValue {
        guard range.lowerBound >= 0, range.upperBound <= bytes.count else { throw bad("a value lies outside the data") }
        if let fixed = type.fixedSize, range.count != fixed {
            throw bad("a fixed-size value has \(range.count) bytes instead of \(fixed)")
        }
        switch type {
        case .byte: return .byte(bytes[range.lowerBound])
        case .uint32: return .uint32(UInt32(truncatingIfNeeded: littleEndian(range)))
        case .uint64: return .uint64(littleEndian(range))
        case .string: return .string(try string(range))
        case .array(let element): return try array(element, range)
        case .tuple(let members): return .tuple(try tuple(members, fixed: type.fixedSize, range))
        case .dictEntry(let key, let value): return .tuple(try tuple([key, value], fixed: type.fixedSize, range))
        }
    }

    private func littleEndian(_ range: Range<Int>) -> UInt64 {
        var value: UInt64 = 0
        for index in range.reversed() { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    private func string(_ range: Range<Int>) throws -> String {
        guard let last = range.last, bytes[last] == 0 else { throw bad("a string is not NUL-terminated") }
        let text = UnsafeRawBufferPointer(rebasing: bytes[range.lowerBound..<last])
        guard !text.contains(0), let string = String(validating: text, as: UTF8.self) else {
            throw bad("a string is not valid UTF-8")
        }
        return string
    }

    /// The size of one framing offset in a container of `size` bytes.
    private static func offsetSize(_ size: Int) -> Int {
        size <= 0xFF ? 1 : size <= 0xFFFF ? 2 : size <= 0xFFFF_FFFF ? 4 : 8
    }

    private func offset(at position: Int, size: Int) -> Int {
        Int(truncatingIfNeeded: littleEndian(position..<(position + size)))
    }

    private func array(_ element: GVariantType, _ range: Range<Int>) throws -> GVariantValue {
        if let fixed = element.fixedSize {
            guard range.count % fixed == 0 else { throw bad("an array's length is not a multiple of its element size") }
            if element == .byte { return .bytes(range) }
            return .array(try stride(from: range.lowerBound, to: range.upperBound, by: fixed).map {
                try decode(element, $0..<($0 + fixed))
            })
        }
        guard !range.isEmpty else { return .array([]) }
        let size = Self.offsetSize(range.count)
        guard range.count >= size else { throw bad("an array is too short for its offset table") }
        let tableStart = offset(at: range.upperBound - size, size: size)
        guard tableStart >= 0, tableStart <= range.count - size, (range.count - tableStart) % size == 0 else {
            throw bad("an array's offset table is out of bounds")
        }
        let count = (range.count - tableStart) / size
        var values: [GVariantValue] = []
        var start = 0
        for index in 0..<count {
            let end = offset(at: range.lowerBound + tableStart + index * size, size: size)
            start = align(start, element.alignment)
            guard start <= end, end <= tableStart else { throw bad("an array element's bounds are invalid") }
            values.append(try decode(element, (range.lowerBound + start)..<(range.lowerBound + end)))
            start = end
        }
        return .array(values)
    }

    private func tuple(_ members: [GVariantType], fixed: Int?, _ range: Range<Int>) throws -> [GVariantValue] {
        // Framing offsets (one per variable-size member except the last) sit at the end, last-written first.
        let framed = members.dropLast().filter { $0.fixedSize == nil }.count
        let size = fixed == nil ? Self.offsetSize(range.count) : 0
        guard range.count >= framed * size else { throw bad("a tuple is too short for its offset table") }
        let dataEnd = range.count - framed * size
        var values: [GVariantValue] = []
        var start = 0
        var frame = 0
        for (index, member) in members.enumerated() {
            start = align(start, member.alignment)
            let end: Int
            if let memberSize = member.fixedSize {
                end = start + memberSize
            } else if index == members.count - 1 {
                end = dataEnd
            } else {
                frame += 1
                end = offset(at: range.upperBound - frame * size, size: size)
            }
            guard start <= end, end <= dataEnd else { throw bad("a tuple member's bounds are invalid") }
            values.append(try decode(member, (range.lowerBound + start)..<(range.lowerBound + end)))
            start = end
        }
        return values
    }

    private func bad(_ what: String) -> KeyringFileError { .malformed("GVariant data: \(what)") }
}

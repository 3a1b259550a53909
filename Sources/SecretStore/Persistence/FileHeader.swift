// SPDX-License-Identifier: Apache-2.0
// The fixed header at the start of every collection file.

/// Identity of a collection file: format version, collection id, creation time and the index key.
struct FileHeader: Sendable, Equatable {
    static let magic: [UInt8] = Array("COFFER".utf8) + [0, 1]
    static let version: UInt16 = 1
    static let indexKeySize = 32

    var id: String
    var created: UInt64
    /// Keys the attribute tags; stored in clear so locked collections can be searched (FORMAT.md, threat model).
    var indexKey: [UInt8]

    func encode() -> [UInt8] {
        var writer = ByteWriter()
        writer.raw(Self.magic)
        writer.u16(Self.version)
        writer.string(id)
        writer.u64(created)
        writer.raw(indexKey)
        return writer.bytes
    }

    /// Reads a header from the start of `bytes`; returns it and its length.
    static func decode(_ bytes: [UInt8]) throws(FormatError) -> (FileHeader, Int) {
        var reader = ByteReader(bytes[...])
        guard try reader.raw(magic.count) == magic else { throw FormatError("not a Coffer collection file") }
        let version = try reader.u16()
        guard version == Self.version else { throw FormatError("unsupported format version \(version)") }
        let header = FileHeader(id: try reader.string(), created: try reader.u64(), indexKey: try reader.raw(indexKeySize))
        return (header, reader.offset)
    }
}

// SPDX-License-Identifier: Apache-2.0
// Where an item's tags, sealed metadata and sealed secret are: in the collection's file image, or in bytes of its own.

/// An item's attribute tags, sealed metadata and sealed secret, laid out as in its file record:
/// `tags ‖ meta nonce ‖ u32 length ‖ meta ‖ secret nonce ‖ u32 length ‖ secret`.
///
/// Items loaded from a file point into the collection's copy of that file (its *image*) instead of holding copies:
/// at the per-collection item limit, a few small buffers per item were most of the daemon's memory, and freeing the
/// decoded records between them left the heap too fragmented to give back. Items written since own their bytes.
struct SealedItem {
    /// The item's own bytes; `nil` when they are in the collection's image.
    private var owned: [UInt8]?
    /// Where the tags begin, in the image or in `owned`.
    private var start: UInt32
    private var tagCount: UInt16
    private var metaLength: UInt32
    private var secretLength: UInt32

    /// Bytes of its own, for an item written by this process.
    init(tags: [AttributeTag], meta: SealedBlob, secret: SealedBlob) {
        var writer = ByteWriter(capacity: tags.count * FileRecord.tagSize + 2 * (FileRecord.nonceSize + 4)
            + meta.sealed.count + secret.sealed.count)
        for tag in tags { writer.raw(tag.bytes) }
        writer.raw(meta.nonce)
        writer.blob(meta.sealed)
        writer.raw(secret.nonce)
        writer.blob(secret.sealed)
        owned = writer.bytes
        start = 0
        tagCount = UInt16(tags.count)
        metaLength = UInt32(meta.sealed.count)
        secretLength = UInt32(secret.sealed.count)
    }

    /// The span of the file's bytes that `frame`, holding `record`, came from (see ``FileRecord/encodeBody``: the
    /// tags follow the record's length, type, sequence, id, order and tag count).
    /// - Throws: ``FormatError`` when the span does not end where the record does.
    init(in frame: Frame, record: ItemRecord) throws(FormatError) {
        try self.init(inImageAt: frame.covered.startIndex + 4 + 1 + 8 + 2 + record.id.utf8.count + 8 + 2,
                      end: frame.covered.endIndex, record: record)
    }

    private init(inImageAt start: Int, end: Int, record: ItemRecord) throws(FormatError) {
        self.start = UInt32(start)
        tagCount = UInt16(record.tags.count)
        metaLength = UInt32(record.meta.sealed.count)
        secretLength = UInt32(record.secret.sealed.count)
        owned = nil
        guard start + length == end else { throw FormatError("an item record is laid out unexpectedly") }
    }

    private var length: Int {
        Int(tagCount) * FileRecord.tagSize + 2 * (FileRecord.nonceSize + 4) + Int(metaLength) + Int(secretLength)
    }

    /// The sealed secret's size, which the store's limit on stored secrets counts.
    var secretByteCount: Int { Int(secretLength) }

    func tags(in image: [UInt8]) -> [AttributeTag] {
        let bytes = owned ?? image
        let first = Int(start)
        return (0..<Int(tagCount)).map { index in
            let tagStart = first + index * FileRecord.tagSize
            return AttributeTag(bytes[tagStart..<tagStart + FileRecord.tagSize])
        }
    }

    func meta(in image: [UInt8]) -> SealedBlob {
        blob(in: owned ?? image, at: Int(start) + Int(tagCount) * FileRecord.tagSize, length: Int(metaLength))
    }

    func secret(in image: [UInt8]) -> SealedBlob {
        blob(in: owned ?? image, at: Int(start) + Int(tagCount) * FileRecord.tagSize + FileRecord.nonceSize + 4
                + Int(metaLength), length: Int(secretLength))
    }

    private func blob(in bytes: [UInt8], at offset: Int, length: Int) -> SealedBlob {
        let sealedStart = offset + FileRecord.nonceSize + 4
        return SealedBlob(nonce: Array(bytes[offset..<offset + FileRecord.nonceSize]),
                          sealed: Array(bytes[sealedStart..<sealedStart + length]))
    }
}

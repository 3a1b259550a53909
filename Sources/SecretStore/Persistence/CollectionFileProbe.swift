// SPDX-License-Identifier: Apache-2.0
// An entry point for fuzzing the collection file decoders with arbitrary bytes.

/// Runs untrusted bytes through the decoders a collection file meets when it is opened: the header, the record chain
/// and each record's body, and the sealed item metadata once decrypted. For fuzz targets only, hence the SPI.
@_spi(Fuzzing)
public enum CollectionFileProbe {
    /// What decoding found.
    public enum Outcome: Equatable, Sendable {
        /// The decoders refused the bytes with a format error.
        case rejected
        /// The bytes parsed as a file with this many records, each of which encodes back to the bytes it came from.
        case parsed(records: Int)
        /// A record decoded, but encoding it again gives different bytes, or its item read in place from the file's
        /// bytes (as a loaded collection reads it) differs from the decoded one: two readers could disagree on one
        /// file.
        case notCanonical(sequence: UInt64)
    }

    /// Decodes `bytes` as a whole collection file.
    public static func decodeFile(_ bytes: [UInt8]) -> Outcome {
        guard let parsed = try? Journal.parse(bytes) else { return .rejected }
        for frame in parsed.frames {
            let body = frame.covered.dropFirst(4)
            guard frame.record.encodeBody(sequence: frame.sequence)[...] == body else {
                return .notCanonical(sequence: frame.sequence)
            }
            if case .item(let record) = frame.record {
                guard let sealed = try? SealedItem(in: frame, record: record),
                      sealed.tags(in: parsed.bytes).map(\.bytes) == record.tags,
                      sealed.meta(in: parsed.bytes) == record.meta, sealed.secret(in: parsed.bytes) == record.secret
                else { return .notCanonical(sequence: frame.sequence) }
            }
        }
        return .parsed(records: parsed.frames.count)
    }

    /// Decodes `bytes` as the plaintext of an item's sealed metadata; `true` when it is accepted.
    /// The content-type-only decoder a secret read uses must agree with the full one (a crash otherwise).
    public static func decodeItemMetadata(_ bytes: [UInt8]) -> Bool {
        guard let meta = try? ItemMeta.decode(bytes) else { return false }
        let contentType = bytes.withUnsafeBytes { try? ItemMeta.decodeContentType($0) }
        precondition(contentType == meta.contentType, "the content-type decoder disagrees with the full decoder")
        return true
    }
}

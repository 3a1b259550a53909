// SPDX-License-Identifier: Apache-2.0
// The records of a collection file and their binary form (see FORMAT.md).

import SecretCrypto

/// Argon2id parameters plus salt, as stored with a wrapped master key.
struct KeyWrap: Sendable, Equatable {
    var parameters: Argon2idParameters
    var salt: [UInt8]
    var nonce: [UInt8]
    var wrappedKey: [UInt8]
}

/// A sealed blob: AES-256-GCM ciphertext with its tag, and the nonce.
struct SealedBlob: Sendable, Equatable {
    var nonce: [UInt8]
    var sealed: [UInt8]
}

/// An item as it is stored: clear id, order and tags; sealed metadata and secret.
struct ItemRecord: Sendable, Equatable {
    var id: String
    var sequence: UInt64
    var tags: [[UInt8]]
    var meta: SealedBlob
    var secret: SealedBlob
}

/// One record of the journal.
enum FileRecord: Sendable, Equatable {
    case keyWrap(KeyWrap)
    case collection(label: String, modified: UInt64)
    case item(ItemRecord)
    case delete(itemID: String)
    /// A key slot other than slot 0 (which is the key wrap record).
    case keySlot(KeySlot)
    /// The applications the user always allowed to use every item of the collection, sealed with the data key
    /// (``SecretVault/sealCollectionAccess(_:)``).
    case collectionAccess(SealedBlob)

    static let nonceSize = 12
    static let tagSize = 16
    /// Bounds on decoded fields, so a corrupt length cannot make the reader allocate without limit.
    static let maximumBlob = 64 << 20

    var typeCode: UInt8 {
        switch self {
        case .keyWrap: 1
        case .collection: 2
        case .item: 3
        case .delete: 4
        case .keySlot: 5
        case .collectionAccess: 6
        }
    }

    /// The record body: type, sequence, payload.
    func encodeBody(sequence: UInt64) -> [UInt8] {
        var writer = ByteWriter()
        writer.u8(typeCode)
        writer.u64(sequence)
        switch self {
        case .keyWrap(let wrap):
            writer.u32(wrap.parameters.iterations)
            writer.u32(wrap.parameters.memoryKiB)
            writer.u32(wrap.parameters.parallelism)
            writer.raw(wrap.salt)
            writer.raw(wrap.nonce)
            writer.blob(wrap.wrappedKey)
        case .collection(let label, let modified):
            writer.string(label)
            writer.u64(modified)
        case .item(let item):
            writer.string(item.id)
            writer.u64(item.sequence)
            writer.u16(UInt16(item.tags.count))
            for tag in item.tags { writer.raw(tag) }
            writer.raw(item.meta.nonce)
            writer.blob(item.meta.sealed)
            writer.raw(item.secret.nonce)
            writer.blob(item.secret.sealed)
        case .delete(let id):
            writer.string(id)
        case .keySlot(let slot):
            slot.writeDerivation(to: &writer)
            writer.raw(slot.nonce)
            writer.blob(slot.wrappedKey)
        case .collectionAccess(let blob):
            writer.raw(blob.nonce)
            writer.blob(blob.sealed)
        }
        return writer.bytes
    }

    /// Decodes a record body.
    static func decodeBody(_ body: ArraySlice<UInt8>) throws(FormatError) -> (sequence: UInt64, record: FileRecord) {
        var reader = ByteReader(body)
        let type = try reader.u8()
        let sequence = try reader.u64()
        let record: FileRecord
        switch type {
        case 1:
            let parameters = Argon2idParameters(iterations: try reader.u32(), memoryKiB: try reader.u32(),
                                                parallelism: try reader.u32())
            record = .keyWrap(KeyWrap(parameters: parameters, salt: try reader.raw(16), nonce: try reader.raw(nonceSize),
                                      wrappedKey: try reader.blob(maximum: 64)))
        case 2:
            record = .collection(label: try reader.string(), modified: try reader.u64())
        case 3:
            let id = try reader.string()
            let order = try reader.u64()
            let count = Int(try reader.u16())
            var tags: [[UInt8]] = []
            tags.reserveCapacity(count)
            for _ in 0..<count { tags.append(try reader.raw(tagSize)) }
            let meta = SealedBlob(nonce: try reader.raw(nonceSize), sealed: try reader.blob(maximum: maximumBlob))
            let secret = SealedBlob(nonce: try reader.raw(nonceSize), sealed: try reader.blob(maximum: maximumBlob))
            record = .item(ItemRecord(id: id, sequence: order, tags: tags, meta: meta, secret: secret))
        case 4:
            record = .delete(itemID: try reader.string())
        case 5:
            record = .keySlot(try decodeKeySlot(&reader))
        case 6:
            record = .collectionAccess(SealedBlob(nonce: try reader.raw(nonceSize),
                                                  sealed: try reader.blob(maximum: maximumBlob)))
        default:
            throw FormatError("unknown record type \(type)")
        }
        guard reader.isAtEnd else { throw FormatError("trailing bytes in a record") }
        return (sequence, record)
    }

    private static func decodeKeySlot(_ reader: inout ByteReader) throws(FormatError) -> KeySlot {
        let id = try reader.u32()
        guard id != 0 else { throw FormatError("a key slot record names slot 0, which only a key wrap record may hold") }
        let code = try reader.u8()
        guard let kind = KeySlotKind(rawValue: code) else { throw FormatError("unknown key slot kind \(code)") }
        var parameters: Argon2idParameters?
        if kind == .password {
            parameters = Argon2idParameters(iterations: try reader.u32(), memoryKiB: try reader.u32(),
                                            parallelism: try reader.u32())
        }
        return KeySlot(id: id, kind: kind, parameters: parameters, salt: try reader.raw(KeySlot.saltSize),
                       nonce: try reader.raw(nonceSize), wrappedKey: try reader.blob(maximum: 64))
    }
}

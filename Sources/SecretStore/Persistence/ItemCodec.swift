// SPDX-License-Identifier: Apache-2.0
// Sealing and opening item metadata and secrets with a collection's data key.

import SecretCrypto
import SecretServiceProtocol

/// An item's descriptive data, encrypted in files and held in clear in memory while unlocked.
struct ItemMeta: Sendable, Equatable {
    var label: String
    var attributes: [String: String]
    var contentType: String
    var created: UInt64
    var modified: UInt64
    /// The application identity that created the item (docs/ACCESS-CONTROL.md); `nil` for items made before
    /// identities were recorded, or imported: they belong to no application in particular.
    var creator: String? = nil
    /// Applications the user always allowed to use this item although they did not create it.
    var allowed: [String] = []
    /// The item's id in its synchronized collection's journals (docs/SYNC.md), the same on every device; `nil` until
    /// the item is first written to a journal.
    var syncItem: [UInt8]? = nil
    /// When the item holds another device's change, merged from its journal: that change's clock and device (24
    /// bytes), so that reopening the journals tells it from a local change the journal may lack; `nil` for a local
    /// change.
    var syncStamp: [UInt8]? = nil

    func encode() -> [UInt8] {
        var writer = ByteWriter()
        writer.string(label)
        writer.u16(UInt16(attributes.count))
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
            writer.string(name)
            writer.string(value)
        }
        writer.string(contentType)
        // Optional fields, each a tag byte and its value, between the content type and the times: an item without
        // them encodes exactly as before, and `modified` stays the last eight bytes, which readers that need only
        // the time rely on.
        if let creator {
            writer.u8(Self.creatorTag)
            writer.string(creator)
        }
        if !allowed.isEmpty {
            writer.u8(Self.allowedTag)
            writer.u16(UInt16(allowed.count))
            for application in allowed { writer.string(application) }
        }
        if let syncItem {
            writer.u8(Self.syncItemTag)
            writer.raw(syncItem)
        }
        if let syncStamp {
            writer.u8(Self.syncStampTag)
            writer.raw(syncStamp)
        }
        writer.u64(created)
        writer.u64(modified)
        return writer.bytes
    }

    /// The tag of the optional creator field, which may sit between the content type and `created`.
    static let creatorTag: UInt8 = 1
    /// The tag of the optional list of applications always allowed.
    static let allowedTag: UInt8 = 2
    /// The tag of the optional synchronized item id.
    static let syncItemTag: UInt8 = 3
    static let syncItemByteCount = 16
    /// The tag of the optional stamp of a merged change.
    static let syncStampTag: UInt8 = 4
    static let syncStampByteCount = 24
    /// Only the content type, skipping the label and attributes before it.
    static func decodeContentType(_ bytes: UnsafeRawBufferPointer) throws(FormatError) -> String {
        var offset = 0
        func length(_ size: Int) throws(FormatError) -> Int {
            guard offset + size <= bytes.count else { throw FormatError("item metadata too short") }
            defer { offset += size }
            return bytes[offset..<offset + size].reduce(0) { $0 << 8 | Int($1) }
        }
        func skipString() throws(FormatError) {
            let count = try length(2)
            guard offset + count <= bytes.count else { throw FormatError("item metadata too short") }
            offset += count
        }
        try skipString()
        for _ in 0..<(try length(2)) {
            try skipString()
            try skipString()
        }
        let count = try length(2)
        guard offset + count <= bytes.count else { throw FormatError("item metadata too short") }
        guard let text = String(validating: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count]),
                                as: UTF8.self)
        else { throw FormatError("invalid UTF-8") }
        return text
    }

    static func decode(_ bytes: [UInt8]) throws(FormatError) -> ItemMeta {
        var reader = ByteReader(bytes[...])
        let label = try reader.string()
        var attributes: [String: String] = [:]
        for _ in 0..<Int(try reader.u16()) {
            let name = try reader.string()
            attributes[name] = try reader.string()
        }
        let contentType = try reader.string()
        var creator: String?
        var allowed: [String] = []
        var syncItem: [UInt8]?
        var syncStamp: [UInt8]?
        var lastTag: UInt8 = 0
        // Whatever precedes the two times is optional fields.
        while reader.remaining > 16 {
            let tag = try reader.u8()
            // Each field at most once, in tag order, so one metadata has one encoding.
            guard tag > lastTag else { throw FormatError("item metadata fields out of order") }
            lastTag = tag
            switch tag {
            case creatorTag: creator = try reader.string()
            case allowedTag:
                for _ in 0..<Int(try reader.u16()) { allowed.append(try reader.string()) }
            case syncItemTag: syncItem = try reader.raw(syncItemByteCount)
            case syncStampTag: syncStamp = try reader.raw(syncStampByteCount)
            default: throw FormatError("unknown field \(tag) in item metadata")
            }
        }
        let meta = ItemMeta(label: label, attributes: attributes, contentType: contentType,
                            created: try reader.u64(), modified: try reader.u64(), creator: creator, allowed: allowed,
                            syncItem: syncItem, syncStamp: syncStamp)
        guard reader.isAtEnd else { throw FormatError("trailing bytes in item metadata") }
        return meta
    }
}

/// Seals item metadata and secrets under one collection's data key. The associated data binds each ciphertext to
/// its kind, collection and item, so none can be replayed elsewhere.
struct SecretVault: Sendable {
    /// The data key as a keyed cipher context: every lookup opens a secret and every start-up opens every record,
    /// so the context is opened once per unlock rather than once per value.
    private let key: AES256GCM.Key
    let collectionID: String
    /// The associated data's leading part for secrets and for metadata: the kind and the collection, the same for
    /// every item, so reading many secrets builds only each item's own part.
    private let secretPrefix: [UInt8]
    private let metaPrefix: [UInt8]

    init(key: SecretBytes, collectionID: String) throws {
        self.key = try AES256GCM.Key(key)
        self.collectionID = collectionID
        secretPrefix = Self.prefix("secret", collectionID)
        metaPrefix = Self.prefix("meta", collectionID)
    }

    /// A vault with a random key, for collections that live only in memory.
    /// - Throws: `failed` when libgcrypt cannot open a cipher context (secure memory exhausted).
    static func ephemeral(collectionID: String) throws(SecretServiceError) -> SecretVault {
        do {
            return try SecretVault(key: try SecureRandom.secretBytes(count: 32), collectionID: collectionID)
        } catch {
            throw .failed("no cipher context for the collection: \(error)")
        }
    }

    private static func prefix(_ kind: String, _ collectionID: String) -> [UInt8] {
        var writer = ByteWriter()
        writer.raw(Array("coffer/1 \(kind)".utf8))
        writer.string(collectionID)
        return writer.bytes
    }

    /// The associated data of one item's secret or metadata: `prefix` (``secretPrefix`` or ``metaPrefix``), then
    /// the item.
    private func associatedData(_ prefix: [UInt8], _ item: String) -> [UInt8] {
        var writer = ByteWriter(capacity: prefix.count + item.utf8.count + 2)
        writer.raw(prefix)
        writer.string(item)
        return writer.bytes
    }

    func sealSecret(_ value: SecretBytes, item: String) throws -> SealedBlob {
        let nonce = SecureRandom.nonce(count: FileRecord.nonceSize)
        return SealedBlob(nonce: nonce, sealed: try key.seal(value, nonce: nonce,
                                                                   associatedData: associatedData(secretPrefix, item)))
    }

    func openSecret(_ blob: SealedBlob, item: String) throws -> SecretBytes {
        try key.open(blob.sealed, nonce: blob.nonce, associatedData: associatedData(secretPrefix, item))
    }

    func sealMeta(_ meta: ItemMeta, item: String) throws -> SealedBlob {
        let nonce = SecureRandom.nonce(count: FileRecord.nonceSize)
        let plain = try SecretBytes(copying: meta.encode())
        return SealedBlob(nonce: nonce, sealed: try key.seal(plain, nonce: nonce,
                                                                   associatedData: associatedData(metaPrefix, item)))
    }

    /// Only the metadata's `modified`, its last field: what ordering and the collection's time need, without
    /// decoding the rest.
    func openModified(_ blob: SealedBlob, item: String) throws -> UInt64 {
        let plain = try key.open(blob.sealed, nonce: blob.nonce, associatedData: associatedData(metaPrefix, item))
        guard plain.count >= 8 else { throw FormatError("item metadata too short") }
        return plain.withUnsafeBytes { raw in raw[(raw.count - 8)...].reduce(0) { $0 << 8 | UInt64($1) } }
    }

    /// Only the metadata's content type, which a secret is returned with.
    func openContentType(_ blob: SealedBlob, item: String) throws -> String {
        let plain = try key.open(blob.sealed, nonce: blob.nonce, associatedData: associatedData(metaPrefix, item))
        return try plain.withUnsafeBytes { raw throws(FormatError) in try ItemMeta.decodeContentType(raw) }
    }

    /// Seals `plain` under the data key (for records other than items, whose associated data their codec makes).
    func sealed(_ plain: SecretBytes, nonce: [UInt8], associatedData: [UInt8]) throws -> [UInt8] {
        try key.seal(plain, nonce: nonce, associatedData: associatedData)
    }

    /// Opens what ``sealed(_:nonce:associatedData:)`` made.
    func opened(_ blob: SealedBlob, associatedData: [UInt8]) throws -> SecretBytes {
        try key.open(blob.sealed, nonce: blob.nonce, associatedData: associatedData)
    }

    func openMeta(_ blob: SealedBlob, item: String) throws -> ItemMeta {
        let plain = try key.open(blob.sealed, nonce: blob.nonce,
                                       associatedData: associatedData(metaPrefix, item))
        return try ItemMeta.decode(plain.copyBytes())
    }
}

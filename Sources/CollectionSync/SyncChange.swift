// SPDX-License-Identifier: Apache-2.0
// What one journal record says, and its plaintext form (sealed by JournalRecordCodec).

public import SecretCrypto

/// An item's whole content: a change replaces label, attributes, content type, secret and times together, so an
/// item is always one device's version of it, never a mix of two.
public struct SyncItemContent: Sendable, Equatable {
    public var label: String
    public var attributes: [String: String]
    public var contentType: String
    /// In secure memory; never printed.
    public var secret: SecretBytes
    /// Unix seconds, as the Secret Service's `Created` and `Modified` properties.
    public var created: UInt64
    public var modified: UInt64

    public init(label: String, attributes: [String: String], contentType: String, secret: SecretBytes,
                created: UInt64, modified: UInt64) {
        self.label = label
        self.attributes = attributes
        self.contentType = contentType
        self.secret = secret
        self.created = created
        self.modified = modified
    }

    /// Equal content, the secrets compared in constant time.
    public static func == (lhs: SyncItemContent, rhs: SyncItemContent) -> Bool {
        lhs.label == rhs.label && lhs.attributes == rhs.attributes && lhs.contentType == rhs.contentType
            && lhs.created == rhs.created && lhs.modified == rhs.modified && lhs.secret.constantTimeEquals(rhs.secret)
    }
}

/// One change a device announces in its journal.
public enum SyncChange: Sendable, Equatable {
    /// The item now has this content (a creation or a change: the merge needs no difference).
    case put(SyncItemID, SyncItemContent)
    /// The item was deleted: a tombstone, so that an older change arriving later cannot bring it back.
    case delete(SyncItemID)
    /// The device's name for people (its host name by default), for `coffer sync status`; sealed like everything.
    case deviceName(String)
    /// How far this device has merged each other device's journal (the highest sequence number); what compaction
    /// needs to know before it may drop a tombstone.
    case seen([DeviceID: UInt64])

    var kind: UInt8 {
        switch self {
        case .put: 1
        case .delete: 2
        case .deviceName: 3
        case .seen: 4
        }
    }

    /// `kind | clock | body`, in secure memory because a put's body ends with the secret.
    /// - Throws: ``SyncFormatError`` for a field too long for the format, ``CryptoError`` when no secure memory is
    ///   left.
    func plaintext(clock: HybridTimestamp) throws -> SecretBytes {
        var writer = SyncByteWriter()
        writer.u8(kind)
        writer.u64(clock.packed)
        var secret: SecretBytes?
        switch self {
        case .put(let item, let content):
            writer.raw(item.bytes)
            writer.u64(content.created)
            writer.u64(content.modified)
            try writer.string(content.label, what: "the label")
            guard let count = UInt16(exactly: content.attributes.count) else {
                throw SyncFormatError("more than 65535 attributes")
            }
            writer.u16(count)
            for (name, value) in content.attributes.sorted(by: { $0.key < $1.key }) {
                try writer.string(name, what: "an attribute name")
                try writer.string(value, what: "an attribute value")
            }
            try writer.string(content.contentType, what: "the content type")
            guard let length = UInt32(exactly: content.secret.count) else { throw SyncFormatError("secret too long") }
            writer.u32(length)
            secret = content.secret
        case .delete(let item):
            writer.raw(item.bytes)
        case .deviceName(let name):
            try writer.string(name, what: "the device name")
        case .seen(let vector):
            guard let count = UInt16(exactly: vector.count) else { throw SyncFormatError("more than 65535 devices") }
            writer.u16(count)
            for (device, sequence) in vector.sorted(by: { $0.key < $1.key }) {
                writer.raw(device.bytes)
                writer.u64(sequence)
            }
        }
        let head = writer.bytes
        let plaintext = try SecretBytes(count: head.count + (secret?.count ?? 0))
        plaintext.withUnsafeMutableBytes { target in
            target.copyBytes(from: head)
            if let secret, !secret.isEmpty {
                secret.withUnsafeBytes { source in
                    target.baseAddress!.advanced(by: head.count).copyMemory(from: source.baseAddress!,
                                                                             byteCount: source.count)
                }
            }
        }
        return plaintext
    }

    /// Decodes ``plaintext(clock:)``; the secret is copied straight from secure memory into secure memory.
    static func decode(_ plaintext: SecretBytes) throws -> (clock: HybridTimestamp, change: SyncChange) {
        try plaintext.withUnsafeBytes { bytes in
            var reader = SyncByteReader(bytes)
            let kind = try reader.u8()
            let clock = HybridTimestamp(packed: try reader.u64())
            let change: SyncChange
            switch kind {
            case 1:
                let item = try reader.identifier()
                let created = try reader.u64()
                let modified = try reader.u64()
                let label = try reader.string()
                var attributes: [String: String] = [:]
                for _ in 0..<Int(try reader.u16()) {
                    let name = try reader.string()
                    guard attributes.updateValue(try reader.string(), forKey: name) == nil else {
                        throw SyncFormatError("an attribute name appears twice")
                    }
                }
                let contentType = try reader.string()
                let span = try reader.range(Int(try reader.u32()))
                let secret = try SecretBytes.copy(of: UnsafeRawBufferPointer(rebasing: bytes[span]))
                change = .put(item, SyncItemContent(label: label, attributes: attributes, contentType: contentType,
                                                     secret: secret, created: created, modified: modified))
            case 2:
                change = .delete(try reader.identifier())
            case 3:
                change = .deviceName(try reader.string())
            case 4:
                var vector: [DeviceID: UInt64] = [:]
                for _ in 0..<Int(try reader.u16()) {
                    let device = try reader.identifier()
                    guard vector.updateValue(try reader.u64(), forKey: device) == nil else {
                        throw SyncFormatError("a device appears twice in a seen record")
                    }
                }
                change = .seen(vector)
            default:
                throw SyncFormatError("unknown change kind \(kind)")
            }
            guard reader.isAtEnd else { throw SyncFormatError("trailing bytes in a record") }
            return (clock, change)
        }
    }
}

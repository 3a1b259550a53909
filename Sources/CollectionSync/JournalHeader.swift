// SPDX-License-Identifier: Apache-2.0
// The authenticated header that starts every journal file and its HMAC chain.

import SecretCrypto

/// The first bytes of a journal: whose it is, which compaction of it, where its sequence numbers start, and (for a
/// compacted journal) how far its device had merged every other journal when it compacted. Authenticated by the
/// MAC that also starts the record chain.
public struct JournalHeader: Sendable, Equatable {
    public var collection: SyncCollectionID
    public var device: DeviceID
    /// 0 for a journal as first created; each compaction writes the next number, so an older file cannot return.
    public var compaction: UInt64
    /// The sequence number of the first record; compaction keeps numbering where the old journal stopped.
    public var firstSequence: UInt64
    /// The device's seen vector when it compacted (empty before the first compaction): its snapshot no longer
    /// holds any of its own records that the changes up to these sequence numbers superseded.
    public var horizon: [DeviceID: UInt64]

    static let magic = Array("COFFSYNC".utf8)
    static let version: UInt16 = 1
    /// Bytes before the horizon entries: magic, version, collection, device, compaction, first sequence, count.
    static let fixedByteCount = 8 + 2 + 16 + 16 + 8 + 8 + 2
    static let horizonEntryByteCount = 16 + 8
    static let macByteCount = HMACSHA256.byteCount

    public init(collection: SyncCollectionID, device: DeviceID, compaction: UInt64 = 0, firstSequence: UInt64 = 1,
                horizon: [DeviceID: UInt64] = [:]) {
        self.collection = collection
        self.device = device
        self.compaction = compaction
        self.firstSequence = firstSequence
        self.horizon = horizon
    }

    /// The header's bytes and its MAC, which is also the chain value before the first record.
    func encode(keys: SyncKeys) throws -> (bytes: [UInt8], mac: [UInt8]) {
        var writer = SyncByteWriter(capacity: Self.fixedByteCount + horizon.count * Self.horizonEntryByteCount + 32)
        writer.raw(Self.magic)
        writer.u16(Self.version)
        writer.raw(collection.bytes)
        writer.raw(device.bytes)
        writer.u64(compaction)
        writer.u64(firstSequence)
        guard let count = UInt16(exactly: horizon.count) else { throw SyncFormatError("more than 65535 devices") }
        writer.u16(count)
        for (device, sequence) in horizon.sorted(by: { $0.key < $1.key }) {
            writer.raw(device.bytes)
            writer.u64(sequence)
        }
        let mac = try Self.mac(writer.bytes[...], keys: keys)
        writer.raw(mac)
        return (writer.bytes, mac)
    }

    /// What the start of a file holds.
    enum Decoded {
        /// The file ends inside the header: nothing of the journal has arrived yet.
        case incomplete
        /// A verified header, its length including the MAC, and the MAC.
        case header(JournalHeader, length: Int, mac: [UInt8])
    }

    /// Decodes and authenticates the header at the start of `bytes`.
    /// - Throws: ``JournalDamage``; ``CryptoError`` when libgcrypt cannot compute the MAC now (not damage).
    static func decode(_ bytes: ArraySlice<UInt8>, keys: SyncKeys) throws -> Decoded {
        guard bytes.count >= fixedByteCount else { return .incomplete }
        var reader = SyncByteReader(bytes)
        do {
            guard try reader.raw(8) == magic else { throw JournalDamage.malformed("not a journal (bad magic)") }
            let version = try reader.u16()
            guard version == Self.version else { throw JournalDamage.malformed("unknown journal version \(version)") }
            let collection = try reader.identifier()
            let device = try reader.identifier()
            let compaction = try reader.u64()
            let firstSequence = try reader.u64()
            let count = Int(try reader.u16())
            let length = fixedByteCount + count * horizonEntryByteCount + macByteCount
            guard bytes.count >= length else { return .incomplete }
            var horizon: [DeviceID: UInt64] = [:]
            for _ in 0..<count {
                let other = try reader.identifier()
                guard horizon.updateValue(try reader.u64(), forKey: other) == nil else {
                    throw JournalDamage.malformed("a device appears twice in the header")
                }
            }
            let fieldsEnd = bytes.startIndex + length - macByteCount
            let stored = Array(bytes[fieldsEnd..<bytes.startIndex + length])
            let expected = try mac(bytes[bytes.startIndex..<fieldsEnd], keys: keys)
            guard ConstantTime.equal(stored, expected) else { throw JournalDamage.tampered(sequence: nil) }
            guard firstSequence >= 1, firstSequence < .max else {
                throw JournalDamage.malformed("first sequence number \(firstSequence) out of range")
            }
            let header = JournalHeader(collection: collection, device: device, compaction: compaction,
                                       firstSequence: firstSequence, horizon: horizon)
            return .header(header, length: length, mac: expected)
        } catch let error as SyncFormatError {
            throw JournalDamage.malformed("\(error)")
        }
    }

    private static func mac(_ fields: ArraySlice<UInt8>, keys: SyncKeys) throws -> [UInt8] {
        try HMACSHA256.Authenticator(key: keys.chain).code(for: Array("coffer-sync/1 header".utf8)[...], fields)
    }
}

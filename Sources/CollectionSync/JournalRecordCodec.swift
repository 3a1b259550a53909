// SPDX-License-Identifier: Apache-2.0
// Sealing records for a journal and opening them again: AES-256-GCM for content, an HMAC chain for order.

import SecretCrypto

/// One verified record of a device's journal.
public struct SyncRecord: Sendable, Equatable {
    public var device: DeviceID
    public var sequence: UInt64
    public var clock: HybridTimestamp
    public var change: SyncChange

    public init(device: DeviceID, sequence: UInt64, clock: HybridTimestamp, change: SyncChange) {
        self.device = device
        self.sequence = sequence
        self.clock = clock
        self.change = change
    }
}

/// The byte form of records: `length u32 | sequence u64 | nonce (12) | sealed | mac (32)`, where `length` counts
/// sequence, nonce and sealed, and `mac = HMAC(chain key, previous mac | length | sequence | nonce | sealed)`.
enum JournalRecordCodec {
    static let macByteCount = HMACSHA256.byteCount
    /// The smallest `length`: a sequence number, a nonce and a GCM tag around an empty plaintext.
    static let minimumLength = 8 + AES256GCM.nonceByteCount + AES256GCM.tagByteCount
    /// The largest `length` a reader accepts, so a corrupt length cannot make it wait for or allocate without end.
    static let maximumLength = 80 << 20

    /// Seals `change` as record `sequence` of `device`'s journal, chained after `previousMAC`.
    /// - Returns: the framed bytes to append and the new chain value.
    static func seal(_ change: SyncChange, clock: HybridTimestamp, sequence: UInt64, device: DeviceID,
                     previousMAC: [UInt8], keys: SyncKeys) throws -> (bytes: [UInt8], mac: [UInt8]) {
        let plaintext = try change.plaintext(clock: clock)
        // libgcrypt's nonce generator (random, seeded from the strong one) rather than the strong generator, whose
        // entropy poll on every call would be a visible share of each change's cost, as for the collection file.
        let nonce = SecureRandom.nonce(count: AES256GCM.nonceByteCount)
        let sealed = try keys.record.seal(plaintext, nonce: nonce,
                                          associatedData: associatedData(keys.collection, device, sequence))
        plaintext.wipe()
        let length = 8 + nonce.count + sealed.count
        guard length <= maximumLength else { throw SyncFormatError("record larger than \(maximumLength) bytes") }
        var writer = SyncByteWriter(capacity: 4 + length + macByteCount)
        writer.u32(UInt32(length))
        writer.u64(sequence)
        writer.raw(nonce)
        writer.raw(sealed)
        let mac = try HMACSHA256.Authenticator(key: keys.chain).code(for: previousMAC[...], writer.bytes[...])
        writer.raw(mac)
        return (writer.bytes, mac)
    }

    /// What lies at one offset of a journal.
    enum Frame {
        /// The file ends before this record does: not yet arrived (or, in one's own journal, a torn write).
        case incomplete
        /// A whole record: its sequence number, the bytes the MAC covers, the stored MAC, and where it ends.
        case complete(sequence: UInt64, covered: ArraySlice<UInt8>, mac: ArraySlice<UInt8>, end: Int)
    }

    /// Finds the record starting at `offset`, without keys.
    static func frame(in bytes: [UInt8], at offset: Int) throws(JournalDamage) -> Frame {
        guard bytes.count - offset >= 4 else { return .incomplete }
        let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        // No writer produces a zero length: it is where an engine that fills files in place has not written yet.
        if length == 0 { return .incomplete }
        guard length >= minimumLength, length <= maximumLength else {
            throw .malformed("record length \(length) at offset \(offset)")
        }
        let end = offset + 4 + length + macByteCount
        guard end <= bytes.count else { return .incomplete }
        let sequence = bytes[offset + 4..<offset + 12].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return .complete(sequence: sequence, covered: bytes[offset..<end - macByteCount],
                         mac: bytes[end - macByteCount..<end], end: end)
    }

    /// Checks a complete record's place in the chain, then opens its content.
    /// - Returns: the record and the new chain value.
    /// - Throws: ``JournalDamage`` when the record is not what its device wrote; ``CryptoError`` when libgcrypt
    ///   cannot do the work now (no secure memory left), which says nothing about the journal.
    static func open(covered: ArraySlice<UInt8>, mac: ArraySlice<UInt8>, sequence: UInt64, device: DeviceID,
                     previousMAC: [UInt8], keys: SyncKeys,
                     authenticator: HMACSHA256.Authenticator) throws -> (SyncRecord, [UInt8]) {
        let expected = try authenticator.code(for: previousMAC[...], covered)
        guard ConstantTime.equal(expected, Array(mac)) else { throw JournalDamage.tampered(sequence: sequence) }
        let nonceStart = covered.startIndex + 12
        let nonce = Array(covered[nonceStart..<nonceStart + AES256GCM.nonceByteCount])
        let sealed = Array(covered[(nonceStart + AES256GCM.nonceByteCount)...])
        let plaintext: SecretBytes
        do {
            plaintext = try keys.record.open(sealed, nonce: nonce,
                                             associatedData: associatedData(keys.collection, device, sequence))
        } catch let error as CryptoError where error == .authenticationFailed || error == .invalidCiphertext {
            // The MAC held, so only a holder of the chain key could have written this: still not to be trusted.
            throw JournalDamage.tampered(sequence: sequence)
        }
        defer { plaintext.wipe() }
        do {
            let (clock, change) = try SyncChange.decode(plaintext)
            return (SyncRecord(device: device, sequence: sequence, clock: clock, change: change), expected)
        } catch let error as SyncFormatError {
            throw JournalDamage.malformed("record \(sequence): \(error)")
        }
    }

    /// Binds a record's content to its collection, its device and its place in that device's journal, so no
    /// ciphertext can be moved to another collection, device or position.
    static func associatedData(_ collection: SyncCollectionID, _ device: DeviceID, _ sequence: UInt64) -> [UInt8] {
        var writer = SyncByteWriter(capacity: 60)
        writer.raw(Array("coffer-sync/1 record".utf8))
        writer.raw(collection.bytes)
        writer.raw(device.bytes)
        writer.u64(sequence)
        return writer.bytes
    }
}

// SPDX-License-Identifier: Apache-2.0
// Sealing and opening records: every change round-trips, and no byte of a record can be altered unnoticed.

@testable import CollectionSync
import SecretCrypto
import Testing

@Suite("Sync: record codec")
struct JournalRecordCodecTests {
    let keys: SyncKeys
    let device = DeviceID.random()

    init() throws { keys = try Fixture.keys() }

    /// A header followed by `changes`, as bytes, with the records written.
    func journal(_ changes: [SyncChange], device: DeviceID? = nil, keys: SyncKeys? = nil) throws
        -> (bytes: [UInt8], records: [SyncRecord]) {
        let keys = keys ?? self.keys
        let device = device ?? self.device
        var (bytes, chain) = try JournalHeader(collection: keys.collection, device: device).encode(keys: keys)
        var records: [SyncRecord] = []
        for (index, change) in changes.enumerated() {
            let sequence = UInt64(index + 1)
            let clock = HybridTimestamp(milliseconds: 1_000 + UInt64(index), counter: 0)
            let framed = try JournalRecordCodec.seal(change, clock: clock, sequence: sequence, device: device,
                                                     previousMAC: chain, keys: keys)
            bytes += framed.bytes
            chain = framed.mac
            records.append(SyncRecord(device: device, sequence: sequence, clock: clock, change: change))
        }
        return (bytes, records)
    }

    func open(_ bytes: [UInt8], device: DeviceID? = nil, keys: SyncKeys? = nil) throws
        -> Result<JournalRead, JournalDamage> {
        let keys = keys ?? self.keys
        var follower = JournalFollower(folder: SyncFolder(root: "/nonexistent", collection: keys.collection),
                                       device: device ?? self.device)
        return try follower.read(bytes, keys: keys)
    }

    @Test("every kind of change round-trips, secrets and empty strings included")
    func roundTrip() throws {
        let other = DeviceID.random()
        let changes: [SyncChange] = [
            .put(.random(), try Fixture.content("Wi-Fi", secret: "hunter2", attributes: ["ssid": "home", "": ""])),
            .put(.random(), SyncItemContent(label: "", attributes: [:], contentType: "", secret: try SecretBytes(count: 0),
                                            created: 0, modified: .max)),
            .put(.random(), try Fixture.content("ünïcödé ✓", secret: String(repeating: "x", count: 70_000))),
            .delete(.random()),
            .deviceName("laptop"),
            .seen([other: 17, device: 3]),
            .seen([:]),
        ]
        let (bytes, records) = try journal(changes)
        let read = try open(bytes).get()
        #expect(read.records == records)
        #expect(read.waitingForMore == false)
    }

    @Test("flipping any bit of the header or a record is caught; no altered record is ever delivered")
    func everyByteIsCovered() throws {
        let (bytes, records) = try journal([.put(.random(), try Fixture.content("a")), .delete(.random()),
                                            .deviceName("n")])
        let ranges = try Fixture.recordRanges(bytes, keys: keys)
        // Every byte position, one bit each: the length, the sequence number, the nonce, the ciphertext, the tag
        // and the MAC of every record, and every header field and its MAC.
        for position in 0..<bytes.count {
            var altered = bytes
            altered[position] ^= 0x10
            switch try open(altered) {
            case .failure:
                continue
            case .success(let read):
                // A length made larger than the file looks like a record still in transit: the reader waits, and
                // delivers only the untouched records before it.
                let untouched = ranges.records.prefix { $0.upperBound <= position }.count
                #expect(read.waitingForMore, "byte \(position) altered unnoticed")
                #expect(read.records == Array(records.prefix(untouched)), "byte \(position) altered unnoticed")
            }
        }
    }

    @Test("damage is named: a record altered, dropped or moved; a header of another device or collection")
    func namedDamage() throws {
        let (bytes, _) = try journal((0..<3).map { .deviceName("d\($0)") })
        let ranges = try Fixture.recordRanges(bytes, keys: keys)
        let first = ranges.records[0], second = ranges.records[1], third = ranges.records[2]

        var altered = bytes
        altered[second.upperBound - 40] ^= 1
        #expect(try open(altered).damage == .tampered(sequence: 2))

        let dropped = Array(bytes[..<second.lowerBound] + bytes[third])
        #expect(try open(dropped).damage == .outOfSequence(expected: 2, found: 3))

        let swapped = Array(bytes[..<first.lowerBound] + bytes[second] + bytes[first] + bytes[third])
        #expect(try open(swapped).damage == .outOfSequence(expected: 1, found: 2))

        let elsewhere = DeviceID.random()
        if case .misplaced = try open(bytes, device: elsewhere).damage {} else {
            Issue.record("a journal read in place of another device's was not refused")
        }
        let otherCollection = try Fixture.keys()
        #expect(try open(bytes, keys: otherCollection).damage == .tampered(sequence: nil))
    }

    @Test("a record sealed for another device or position does not open there, even with a valid chain MAC")
    func associatedDataBinds() throws {
        // A holder of the chain key could recompute MACs; the ciphertext is still bound to its device and place.
        let (bytes, _) = try journal([.deviceName("moved")], device: DeviceID.random())
        let ranges = try Fixture.recordRanges(bytes, keys: keys)
        let sealedRecord = Array(bytes[ranges.records[0]].dropLast(JournalRecordCodec.macByteCount))
        let (header, chain) = try JournalHeader(collection: keys.collection, device: device).encode(keys: keys)
        let mac = try HMACSHA256.Authenticator(key: keys.chain).code(for: chain[...], sealedRecord[...])
        #expect(try open(header + sealedRecord + mac).damage == .tampered(sequence: 1))
    }

    @Test("a record whose plaintext is not a change is malformed, even when sealed with the right keys")
    func malformedPlaintext() throws {
        let (header, chain) = try JournalHeader(collection: keys.collection, device: device).encode(keys: keys)
        for plaintext in [[9, 0, 0, 0, 0, 0, 0, 0, 1], [3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 65, 0xff], [2, 0, 0]] as [[UInt8]] {
            let nonce = SecureRandom.bytes(count: 12)
            let sealed = try keys.record.seal(try SecretBytes(copying: plaintext), nonce: nonce,
                                              associatedData: JournalRecordCodec.associatedData(keys.collection, device, 1))
            var writer = SyncByteWriter()
            writer.u32(UInt32(8 + 12 + sealed.count))
            writer.u64(1)
            writer.raw(nonce)
            writer.raw(sealed)
            let mac = try HMACSHA256.Authenticator(key: keys.chain).code(for: chain[...], writer.bytes[...])
            guard case .malformed = try open(header + writer.bytes + mac).damage else {
                Issue.record("plaintext \(plaintext) was accepted")
                continue
            }
        }
    }

    @Test("fields too long for the format are refused with an error when sealing")
    func oversizedFields() throws {
        let long = String(repeating: "y", count: 70_000)
        #expect(throws: SyncFormatError.self) {
            _ = try journal([.put(.random(), try Fixture.content(long))])
        }
        #expect(throws: SyncFormatError.self) { _ = try journal([.deviceName(long)]) }
    }
}

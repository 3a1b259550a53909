// SPDX-License-Identifier: Apache-2.0
// Verifying a run of records: the one loop both the writer (its own journal) and the reader (others') use.

import SecretCrypto

/// The records verified from one offset of a journal to the last complete record.
struct JournalScan {
    var records: [SyncRecord] = []
    /// Where the last verified record ends.
    var end: Int
    var lastSequence: UInt64
    /// The chain value after the last verified record.
    var chain: [UInt8]
    /// Bytes follow `end` that do not yet make a whole record.
    var incompleteTail = false

    /// Verifies every complete record from `offset`, which must carry `lastSequence + 1` on and chain after
    /// `chain`. Stops, without error, where the file ends inside a record.
    /// - Throws: ``JournalDamage``; ``CryptoError`` when libgcrypt cannot do the work now (not damage).
    static func run(_ bytes: [UInt8], from offset: Int, lastSequence: UInt64, chain: [UInt8], device: DeviceID,
                    keys: SyncKeys) throws -> JournalScan {
        var scan = JournalScan(end: offset, lastSequence: lastSequence, chain: chain)
        let authenticator = try HMACSHA256.Authenticator(key: keys.chain)
        while scan.end < bytes.count {
            switch try JournalRecordCodec.frame(in: bytes, at: scan.end) {
            case .incomplete:
                scan.incompleteTail = true
                return scan
            case .complete(let sequence, let covered, let mac, let end):
                // The sequence number is checked before the MAC so that a dropped or swapped record is named as
                // such; the MAC then proves the number was not edited to fit.
                guard scan.lastSequence < .max - 1, sequence == scan.lastSequence + 1 else {
                    throw JournalDamage.outOfSequence(expected: scan.lastSequence &+ 1, found: sequence)
                }
                let (record, next) = try JournalRecordCodec.open(
                    covered: covered, mac: mac, sequence: sequence, device: device, previousMAC: scan.chain,
                    keys: keys, authenticator: authenticator)
                scan.records.append(record)
                scan.chain = next
                scan.lastSequence = sequence
                scan.end = end
            }
        }
        return scan
    }
}

// SPDX-License-Identifier: Apache-2.0
// The byte form of a checkpoint, for keeping it in the local data directory across restarts.

extension JournalCheckpoint {
    static let version: UInt8 = 1

    /// `version u8 = 1 | compaction u64 | header mac (32) | offset u64 | last sequence u64 | chain (32)
    /// | horizon count u16 | (device id (16) | sequence u64)*`. Nothing in it is secret (MACs, numbers, ids); it
    /// belongs in the local collection file, whose MAC chain would protect it like everything there.
    public func encode() -> [UInt8] {
        var writer = SyncByteWriter(capacity: 100 + horizon.count * 24)
        writer.u8(Self.version)
        writer.u64(compaction)
        writer.raw(headerMAC)
        writer.u64(UInt64(offset))
        writer.u64(lastSequence)
        writer.raw(chain)
        // A horizon longer than the format holds could not have been read from a header.
        writer.u16(UInt16(clamping: horizon.count))
        for (device, sequence) in horizon.sorted(by: { $0.key < $1.key }).prefix(Int(UInt16.max)) {
            writer.raw(device.bytes)
            writer.u64(sequence)
        }
        return writer.bytes
    }

    /// - Throws: ``SyncFormatError`` unless `bytes` is exactly what ``encode()`` writes.
    public static func decode(_ bytes: [UInt8]) throws(SyncFormatError) -> JournalCheckpoint {
        var reader = SyncByteReader(bytes[...])
        let version = try reader.u8()
        guard version == Self.version else { throw SyncFormatError("unknown checkpoint version \(version)") }
        let compaction = try reader.u64()
        let headerMAC = try reader.raw(JournalHeader.macByteCount)
        guard let offset = Int(exactly: try reader.u64()) else { throw SyncFormatError("checkpoint offset too large") }
        let lastSequence = try reader.u64()
        let chain = try reader.raw(JournalRecordCodec.macByteCount)
        var horizon: [DeviceID: UInt64] = [:]
        for _ in 0..<Int(try reader.u16()) {
            let device = try reader.identifier()
            guard horizon.updateValue(try reader.u64(), forKey: device) == nil else {
                throw SyncFormatError("a device appears twice in a checkpoint")
            }
        }
        guard reader.isAtEnd else { throw SyncFormatError("trailing bytes in a checkpoint") }
        return JournalCheckpoint(compaction: compaction, headerMAC: headerMAC, offset: offset,
                                 lastSequence: lastSequence, chain: chain, horizon: horizon)
    }
}

// SPDX-License-Identifier: Apache-2.0
// A follower's state in byte form: its checkpoint and, once set aside, the reason, kept across restarts.

extension JournalFollower {
    /// `version u8 = 1 | checkpoint length u32 (0: none) | checkpoint | damage kind u8 (0: none) | damage fields`.
    /// For the local data directory: with it, a journal set aside stays so after a restart, and an older copy put
    /// back while the machine was off is still caught.
    public func encodeState() -> [UInt8] {
        var writer = SyncByteWriter(capacity: 160)
        writer.u8(1)
        let checkpointBytes = checkpoint?.encode() ?? []
        writer.u32(UInt32(checkpointBytes.count))
        writer.raw(checkpointBytes)
        switch damage {
        case nil: writer.u8(0)
        case .malformed(let reason): writer.u8(1); writer.text(reason)
        case .misplaced(let reason): writer.u8(2); writer.text(reason)
        case .tampered(let sequence): writer.u8(3); writer.u8(sequence == nil ? 0 : 1); writer.u64(sequence ?? 0)
        case .outOfSequence(let expected, let found): writer.u8(4); writer.u64(expected); writer.u64(found)
        case .truncated(let verified, let found): writer.u8(5); writer.u64(UInt64(verified)); writer.u64(UInt64(found))
        case .rolledBack(let verified, let found): writer.u8(6); writer.u64(verified); writer.u64(found)
        case .forked(let sequence): writer.u8(7); writer.u64(sequence)
        }
        return writer.bytes
    }

    /// A follower resumed from ``encodeState()``.
    /// - Throws: ``SyncFormatError`` unless `state` is exactly what ``encodeState()`` writes.
    public init(folder: SyncFolder, device: DeviceID, state: [UInt8]) throws(SyncFormatError) {
        var reader = SyncByteReader(state[...])
        let version = try reader.u8()
        guard version == 1 else { throw SyncFormatError("unknown follower state version \(version)") }
        let length = Int(try reader.u32())
        let checkpoint = length == 0 ? nil : try JournalCheckpoint.decode(try reader.raw(length))
        self.init(folder: folder, device: device, checkpoint: checkpoint)
        let kind = try reader.u8()
        switch kind {
        case 0: break
        case 1: setAside(.malformed(try reader.string()))
        case 2: setAside(.misplaced(try reader.string()))
        case 3:
            let known = try reader.u8()
            let sequence = try reader.u64()
            setAside(.tampered(sequence: known == 0 ? nil : sequence))
        case 4: setAside(.outOfSequence(expected: try reader.u64(), found: try reader.u64()))
        case 5:
            guard let verified = Int(exactly: try reader.u64()), let found = Int(exactly: try reader.u64()) else {
                throw SyncFormatError("follower state offset too large")
            }
            setAside(.truncated(verified: verified, found: found))
        case 6: setAside(.rolledBack(verified: try reader.u64(), found: try reader.u64()))
        case 7: setAside(.forked(sequence: try reader.u64()))
        default: throw SyncFormatError("unknown journal damage kind \(kind)")
        }
        guard reader.isAtEnd else { throw SyncFormatError("trailing bytes in a follower state") }
    }
}

extension SyncByteWriter {
    /// A reason, cut to what a `u16` length holds (it is for people, not for parsing).
    mutating func text(_ value: String) {
        var utf8 = Array(value.utf8.prefix(Int(UInt16.max)))
        while String(validating: utf8, as: UTF8.self) == nil { utf8.removeLast() }
        u16(UInt16(utf8.count))
        raw(utf8)
    }
}

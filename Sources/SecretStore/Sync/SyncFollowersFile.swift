// SPDX-License-Identifier: Apache-2.0
// How far cofferd has merged each other device's journal, kept in the data directory across restarts.

import CollectionSync

/// `<data directory>/sync/<collection>.followers`: each other device's follower state (its checkpoint, and why its
/// journal was set aside), so that an older copy of a journal put back while cofferd was not running is still
/// caught, a journal set aside stays so, and an unlock can tell the records it merged before from new ones.
///
/// ```
/// followers := magic "COFFSYNF" (8) | version u16 = 1 | count u16 | (device id (16) | length u32 | state)*
/// ```
/// `state` is ``JournalFollower/encodeState()``. Not secret (offsets, sequence numbers and MACs), and like the
/// collection files' directory, trusted: whoever can rewrite the data directory can also remove it.
enum SyncFollowersFile {
    static let magic = Array("COFFSYNF".utf8)
    static let version: UInt16 = 1
    static let suffix = ".followers"

    static func encode(_ followers: [DeviceID: JournalFollower]) -> [UInt8] {
        var writer = ByteWriter()
        writer.raw(magic)
        writer.u16(version)
        writer.u16(UInt16(clamping: followers.count))
        for (device, follower) in followers.sorted(by: { $0.key < $1.key }).prefix(Int(UInt16.max)) {
            writer.raw(device.bytes)
            let state = follower.encodeState()
            writer.u32(UInt32(state.count))
            writer.raw(state)
        }
        return writer.bytes
    }

    /// The saved followers of the collection whose folder is `folder`.
    static func decode(_ bytes: [UInt8], folder: SyncFolder) throws -> [DeviceID: JournalFollower] {
        var reader = ByteReader(bytes[...])
        guard try reader.raw(magic.count) == magic else { throw FormatError("not a sync followers file") }
        let found = try reader.u16()
        guard found == version else { throw FormatError("unknown sync followers version \(found)") }
        var followers: [DeviceID: JournalFollower] = [:]
        for _ in 0..<Int(try reader.u16()) {
            guard let device = SyncIdentifier(bytes: try reader.raw(SyncIdentifier.byteCount)) else {
                throw FormatError("sync followers file too short")
            }
            let state = try reader.raw(Int(try reader.u32()))
            followers[device] = try JournalFollower(folder: folder, device: device, state: state)
        }
        guard reader.isAtEnd else { throw FormatError("trailing bytes in the sync followers file") }
        return followers
    }
}

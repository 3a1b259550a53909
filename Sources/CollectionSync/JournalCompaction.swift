// SPDX-License-Identifier: Apache-2.0
// Replacing a device's journal by a snapshot of its changes that still matter.

#if canImport(Glibc)
import Glibc
#endif

/// A change kept in a snapshot, with the clock it was first made at (its place in the merge order never moves).
public struct SnapshotChange: Sendable, Equatable {
    public var clock: HybridTimestamp
    public var change: SyncChange

    public init(clock: HybridTimestamp, change: SyncChange) {
        self.clock = clock
        self.change = change
    }
}

extension MergedCollection {
    /// How long a tombstone stays in its device's journal at least, in milliseconds (30 days): long enough for a
    /// device's journal to reach the others after it joins, or after a machine comes back from a trip.
    public static let tombstoneGrace: UInt64 = 30 * 24 * 3600 * 1000

    /// Every device this one has heard of: those whose records it merged, those with a journal in the folder
    /// (`horizons`), and those any verified journal says it has merged.
    func knownDevices(horizons: [DeviceID: [DeviceID: UInt64]]) -> Set<DeviceID> {
        var known = Set(seen.keys).union(horizons.keys)
        for horizon in horizons.values { known.formUnion(horizon.keys) }
        for announced in announcedSeen.values { known.formUnion(announced.vector.keys) }
        return known
    }

    /// What `device`'s compacted journal must still hold: each item whose winning change is the device's own (a
    /// put, or a tombstone that may still be needed), and the device's name.
    ///
    /// A change another device's change superseded is dropped: the winner stays in that device's journal for as
    /// long as it wins. A tombstone is dropped once it is older than `grace` and every other device this one knows
    /// of compacted after merging it (its ``JournalHeader/horizon`` reaches the tombstone's place): none of their
    /// journals then holds a change it superseded, so nothing can bring the item back to a device that joins later.
    /// A device nobody has heard of yet (its journal has reached no one) is what the grace period is for.
    /// - Parameters:
    ///   - device: the compacting device.
    ///   - horizons: the horizon of every other device's journal in the folder (empty for a device that never
    ///     compacted; devices whose journals were set aside count too, with what was last verified of them).
    ///   - now: the device's clock.
    ///   - grace: the least age of a tombstone that may go, in milliseconds.
    public func snapshot(of device: DeviceID, horizons: [DeviceID: [DeviceID: UInt64]], now: HybridTimestamp,
                         grace: UInt64 = tombstoneGrace) -> [SnapshotChange] {
        let others = knownDevices(horizons: horizons).subtracting([device])
        var kept: [SnapshotChange] = []
        for (item, entry) in entries where entry.stamp.device == device {
            if let content = entry.content {
                kept.append(SnapshotChange(clock: entry.stamp.clock, change: .put(item, content)))
                continue
            }
            let old = now.milliseconds >= entry.stamp.clock.milliseconds
                && now.milliseconds - entry.stamp.clock.milliseconds >= grace
            let acted = others.allSatisfy { (horizons[$0]?[device] ?? 0) >= entry.sequence }
            if !(old && acted) {
                kept.append(SnapshotChange(clock: entry.stamp.clock, change: .delete(item)))
            }
        }
        if let name = deviceNames[device] {
            kept.append(SnapshotChange(clock: name.stamp.clock, change: .deviceName(name.name)))
        }
        // Clock order, so that a reader that has only part of the snapshot has the oldest changes first.
        return kept.sorted { $0.clock < $1.clock }
    }
}

extension JournalWriter {
    /// Replaces the journal by a snapshot holding `changes` with their original clocks: a new file with the next
    /// compaction number, numbering on from the old journal, `horizon` in its header, written beside the journal,
    /// synced and renamed over it. A crash leaves the old journal or the new one, whole.
    ///
    /// The snapshot ends with a `seen` record of `horizon` at a fresh clock reading: the device's clock restarts
    /// from its journal, and the changes kept may all be older than readings it already gave.
    /// - Returns: the records of the snapshot, to merge (they change no item: only their places are new).
    @discardableResult
    public func compact(keeping changes: [SnapshotChange], horizon: [DeviceID: UInt64]) throws -> [SyncRecord] {
        let newHeader = JournalHeader(collection: folder.collection, device: device, compaction: header.compaction + 1,
                                      firstSequence: nextSequence, horizon: horizon)
        var (bytes, chain) = try newHeader.encode(keys: keys)
        var records: [SyncRecord] = []
        var sequence = nextSequence
        var next = clock
        let closing = SnapshotChange(clock: try next.tick(), change: .seen(horizon))
        for kept in changes + [closing] {
            let framed = try JournalRecordCodec.seal(kept.change, clock: kept.clock, sequence: sequence, device: device,
                                                     previousMAC: chain, keys: keys)
            bytes += framed.bytes
            chain = framed.mac
            records.append(SyncRecord(device: device, sequence: sequence, clock: kept.clock, change: kept.change))
            sequence += 1
        }
        try SyncFiles.replace(path, with: bytes, directory: folder.directory)
        let fd = Glibc.open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw SyncIOError("cannot open", path) }
        replaceFile(descriptor: fd, header: newHeader, chain: chain, nextSequence: sequence, length: bytes.count,
                    clock: next)
        return records
    }
}

// SPDX-License-Identifier: Apache-2.0
// The merge rule: per item, the change with the highest (clock, device id) wins.

/// Orders changes to one item: by hybrid clock, then by device id, so that no two devices' changes tie.
public struct ChangeStamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var clock: HybridTimestamp
    public var device: DeviceID

    public init(clock: HybridTimestamp, device: DeviceID) {
        self.clock = clock
        self.device = device
    }

    public static func < (lhs: ChangeStamp, rhs: ChangeStamp) -> Bool {
        (lhs.clock, lhs.device) < (rhs.clock, rhs.device)
    }

    public var description: String { "\(clock)@\(device)" }
}

/// An item's winning change: its content, or a tombstone.
public struct MergedEntry: Sendable, Equatable {
    public var stamp: ChangeStamp
    /// `nil` for a deleted item.
    public var content: SyncItemContent?
    /// Where the change now stands in its device's journal: the highest sequence number it was merged from (a
    /// compaction moves a change to a new number). Bookkeeping for compaction, not part of the item.
    public var sequence: UInt64
}

/// What merging one record did to the collection, for the signals clients see.
public enum MergeEffect: Sendable, Equatable {
    case created(SyncItemID)
    case changed(SyncItemID)
    case deleted(SyncItemID)
    /// An older change, a repeat, a deletion of an item never seen live, or bookkeeping.
    case none
}

/// A synchronized collection as the records merged so far define it.
///
/// The state is a function of the *set* of records merged: merging is commutative, associative and idempotent
/// (per item, the maximum of a total order), so devices that have merged the same records hold the same
/// collection whatever order the records came in, and a record merged twice changes nothing. Tombstones stay, so
/// an older change that arrives late cannot bring a deleted item back.
public struct MergedCollection: Sendable {
    public private(set) var entries: [SyncItemID: MergedEntry] = [:]
    /// The highest sequence number merged from each device (this device's seen vector).
    public private(set) var seen: [DeviceID: UInt64] = [:]
    /// The seen vector each device last announced, for deciding when a tombstone may go.
    public private(set) var announcedSeen: [DeviceID: (sequence: UInt64, vector: [DeviceID: UInt64])] = [:]
    /// Each device's latest announced name.
    public private(set) var deviceNames: [DeviceID: (stamp: ChangeStamp, name: String)] = [:]
    /// How many items each device's change wins (live or deleted): about what a compaction of its journal keeps,
    /// known without walking every item.
    public private(set) var winning: [DeviceID: Int] = [:]

    public init() {}

    /// The live items.
    public var items: [SyncItemID: SyncItemContent] {
        entries.compactMapValues(\.content)
    }

    /// Merges one verified record.
    @discardableResult
    public mutating func merge(_ record: SyncRecord) -> MergeEffect {
        seen[record.device] = max(seen[record.device] ?? 0, record.sequence)
        let stamp = ChangeStamp(clock: record.clock, device: record.device)
        switch record.change {
        case .put(let item, let content):
            return apply(MergedEntry(stamp: stamp, content: content, sequence: record.sequence), to: item)
        case .delete(let item):
            return apply(MergedEntry(stamp: stamp, content: nil, sequence: record.sequence), to: item)
        case .deviceName(let name):
            if deviceNames[record.device].map({ $0.stamp < stamp }) ?? true {
                deviceNames[record.device] = (stamp, name)
            }
            return .none
        case .seen(let vector):
            if announcedSeen[record.device].map({ $0.sequence < record.sequence }) ?? true {
                announcedSeen[record.device] = (record.sequence, vector)
            }
            return .none
        }
    }

    private mutating func apply(_ entry: MergedEntry, to item: SyncItemID) -> MergeEffect {
        let previous = entries[item]
        // Equal stamps come from one change merged again, from its first place or from a compacted journal (a
        // device never gives two changes one clock reading): only its place is news.
        if let previous, previous.stamp == entry.stamp {
            entries[item]?.sequence = max(previous.sequence, entry.sequence)
            return .none
        }
        if let previous, previous.stamp > entry.stamp { return .none }
        entries[item] = entry
        if let previous { winning[previous.stamp.device, default: 0] -= 1 }
        winning[entry.stamp.device, default: 0] += 1
        switch (previous?.content != nil, entry.content != nil) {
        case (false, true): return .created(item)
        case (true, true): return .changed(item)
        case (true, false): return .deleted(item)
        case (false, false): return .none
        }
    }
}

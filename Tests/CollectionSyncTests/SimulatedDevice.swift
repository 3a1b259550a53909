// SPDX-License-Identifier: Apache-2.0
// One machine of the convergence test: its own copy of the folder, its journal, its followers and its merge.

@testable import CollectionSync
import Glibc
import SecretCrypto

/// SplitMix64: a small generator whose seed replays a whole run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

extension SyncIdentifier {
    /// An identifier from the test's generator, so a seed replays device order and item choices too.
    static func seeded(_ random: inout SeededGenerator) -> SyncIdentifier {
        let words = [random.next(), random.next()]
        return SyncIdentifier(bytes: words.flatMap { word in (0..<8).map { UInt8(truncatingIfNeeded: word >> ($0 * 8)) } })!
    }
}

/// A device as cofferd will run it: appends its own changes, merges them at once, and merges what the folder
/// brings from the others.
final class SimulatedDevice {
    let id: DeviceID
    let scratch: ScratchFolder
    let folder: SyncFolder
    let wall: ManualWallClock
    let keys: SyncKeys
    private(set) var writer: JournalWriter
    private(set) var followers: [DeviceID: JournalFollower] = [:]
    private(set) var merged = MergedCollection()

    init(id: DeviceID, keys: SyncKeys, wall: ManualWallClock) throws {
        self.id = id
        scratch = try ScratchFolder()
        folder = SyncFolder(root: scratch.path, collection: keys.collection)
        self.wall = wall
        self.keys = keys
        writer = try JournalWriter.open(folder: folder, device: id, keys: keys, wallClock: wall.reading).writer
    }

    var journalPath: String { folder.journalPath(for: id) }

    /// Appends and merges a change of this device's own.
    @discardableResult
    func make(_ change: SyncChange) throws -> SyncRecord {
        let record = try writer.append(change)
        merged.merge(record)
        return record
    }

    /// Reads every other journal in this machine's copy of the folder and merges what is new.
    func pull() throws {
        for device in try folder.devices() where device != id {
            var follower = followers[device] ?? JournalFollower(folder: folder, device: device)
            let result = try follower.readFile(keys: keys)
            followers[device] = follower
            for record in (try? result.get())?.records ?? [] {
                merged.merge(record)
                writer.observe(record.clock)
            }
        }
    }

    /// The journals that were set aside, with the reason.
    var damaged: [DeviceID: JournalDamage] { followers.compactMapValues(\.damage) }

    /// Compacts the journal as cofferd will: its own winners, tombstones the others have all compacted past.
    func compact() throws {
        let horizons = followers.mapValues { $0.checkpoint?.horizon ?? [:] }
        // No grace period: the test's devices all know each other from the start (their journals were delivered
        // before any change), which is the case the grace period stands in for.
        let snapshot = merged.snapshot(of: id, horizons: horizons, now: writer.clock.latest, grace: 0)
        for record in try writer.compact(keeping: snapshot, horizon: merged.seen) { merged.merge(record) }
    }

    /// Leaves part of a record at the end of the journal, as a kill -9 during a write does.
    func tearLastWrite(using random: inout SeededGenerator) throws {
        var torn: [UInt8] = [0, 0, 0, 200]
        torn += (0..<Int.random(in: 0...150, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        try Fixture.appendRaw(torn, to: journalPath)
    }

    /// Restarts the device's writer from its journal, as after a kill -9, and its followers from their states in
    /// byte form.
    func reopen() throws {
        writer = try JournalWriter.open(folder: folder, device: id, keys: keys, wallClock: wall.reading).writer
        followers = try followers.mapValues { follower in
            try JournalFollower(folder: folder, device: follower.device, state: follower.encodeState())
        }
        for record in merged.entries.values { writer.observe(record.stamp.clock) }
    }
}

/// The sync engine, played by the test: copies a journal from one machine's folder to another's, whole or (as an
/// engine mid-transfer shows it) only a prefix of it, never going back on what the target already shows.
enum SimulatedEngine {
    static func deliver(from source: SimulatedDevice, to target: SimulatedDevice, whole: Bool,
                        using random: inout SeededGenerator) throws {
        let bytes = try Fixture.read(source.journalPath)
        let targetPath = target.folder.journalPath(for: source.id)
        let present = try SyncFiles.read(targetPath) ?? []
        // What the target shows stays as it is up to where the files differ: a journal only grows, except where
        // its owner cut a torn record off or replaced it by a compacted one; engines rename a new file into place,
        // so a reader sees at least a whole header.
        let common = zip(present, bytes).prefix { $0 == $1 }.count
        var lowest = common
        if case .header(_, let headerLength, _) = try JournalHeader.decode(bytes[...], keys: source.keys) {
            lowest = max(lowest, headerLength)
        }
        let count = whole ? bytes.count : Int.random(in: lowest...bytes.count, using: &random)
        try SyncFiles.ensureDirectory(target.folder.directory)
        try SyncFiles.replace(targetPath, with: Array(bytes.prefix(count)), directory: target.folder.directory)
    }
}

// SPDX-License-Identifier: Apache-2.0
// Reading other devices' journals: incremental, patient with files in transit, strict about history.

@testable import CollectionSync
import Glibc
import SecretCrypto
import Testing

@Suite("Sync: journal follower")
struct JournalFollowerTests {
    let scratch: ScratchFolder
    let keys: SyncKeys
    /// Where the other device writes (its machine's copy of the folder).
    let source: SyncFolder
    let device = DeviceID.random()
    let wall = ManualWallClock()

    init() throws {
        scratch = try ScratchFolder()
        keys = try Fixture.keys()
        source = SyncFolder(root: scratch.path, collection: keys.collection)
    }

    func writer() throws -> JournalWriter {
        try JournalWriter.open(folder: source, device: device, keys: keys, wallClock: wall.reading).writer
    }

    func follower() -> JournalFollower {
        JournalFollower(folder: source, device: device)
    }

    var path: String { source.journalPath(for: device) }

    @Test("each read returns only what is new; nothing new is an empty read")
    func incremental() throws {
        let journal = try writer()
        var reader = follower()
        let first = try (0..<2).map { _ in try journal.append(.deviceName("a")) }
        #expect(try reader.readFile(keys: keys).get().records == first)
        #expect(try reader.readFile(keys: keys).get().records.isEmpty)
        let second = try journal.append(.delete(.random()))
        #expect(try reader.readFile(keys: keys).get().records == [second])
        #expect(reader.checkpoint?.lastSequence == 3)
        #expect(reader.damage == nil)
    }

    @Test("a file still being copied is read up to its last whole record, at any cut, and completes later")
    func halfCopied() throws {
        let journal = try writer()
        let records = try (0..<3).map { index in try journal.append(.put(.random(), Fixture.content("i\(index)"))) }
        let whole = try Fixture.read(path)
        let ranges = try Fixture.recordRanges(whole, keys: keys)
        let boundaries = [ranges.header] + ranges.records.map(\.upperBound)
        for cut in 0..<whole.count {
            var reader = follower()
            let partial = try reader.read(Array(whole.prefix(cut)), keys: keys).get()
            let complete = boundaries.filter { $0 <= cut }.count - 1
            #expect(partial.records == Array(records.prefix(max(0, complete))), "cut at \(cut)")
            #expect(partial.waitingForMore == !boundaries.contains(cut), "cut at \(cut)")
            let rest = try reader.read(whole, keys: keys).get()
            #expect(rest.records == Array(records.dropFirst(max(0, complete))), "cut at \(cut)")
        }
    }

    @Test("a torn tail completed with other bytes than a valid record is damage")
    func tornTailContradicted() throws {
        let journal = try writer()
        _ = try journal.append(.deviceName("one"))
        _ = try journal.append(.deviceName("two"))
        let whole = try Fixture.read(path)
        var reader = follower()
        #expect(try reader.read(Array(whole.dropLast(10)), keys: keys).get().waitingForMore)
        var forged = whole
        forged[forged.count - 5] ^= 0xff
        #expect(try reader.read(forged, keys: keys).damage == .tampered(sequence: 2))
    }

    @Test("records that arrive reordered, with one missing, or duplicated after what was verified are set aside")
    func reorderedAfterCheckpoint() throws {
        let journal = try writer()
        _ = try (0..<5).map { _ in try journal.append(.deviceName("n")) }
        let whole = try Fixture.read(path)
        let ranges = try Fixture.recordRanges(whole, keys: keys).records
        let verified = Array(whole[..<ranges[1].upperBound])
        let variants: [([UInt8], JournalDamage)] = [
            (verified + whole[ranges[3]] + whole[ranges[2]] + whole[ranges[4]], .outOfSequence(expected: 3, found: 4)),
            (verified + whole[ranges[3]] + whole[ranges[4]], .outOfSequence(expected: 3, found: 4)),
            (verified + whole[ranges[1]] + whole[ranges[2]], .outOfSequence(expected: 3, found: 2)),
        ]
        for (bytes, damage) in variants {
            var reader = follower()
            #expect(try reader.read(verified, keys: keys).get().records.count == 2)
            let result = try reader.read(bytes, keys: keys)
            #expect(result.damage == damage)
            #expect(result.records.isEmpty)
        }
    }

    @Test("a journal cut below what was verified is set aside, and stays so; one removed for a while is not")
    func truncation() throws {
        let journal = try writer()
        _ = try (0..<3).map { _ in try journal.append(.deviceName("x")) }
        let whole = try Fixture.read(path)
        var reader = follower()
        _ = try reader.read(whole, keys: keys).get()
        #expect(try reader.read(Array(whole.dropLast(70)), keys: keys).damage == .truncated(verified: whole.count,
                                                                                          found: whole.count - 70))
        // Set aside for good: even the genuine file delivers nothing any more.
        #expect(try reader.read(whole, keys: keys).damage == .truncated(verified: whole.count, found: whole.count - 70))
        #expect(reader.damage != nil)

        var other = follower()
        _ = try other.read(whole, keys: keys).get()
        // Syncthing removes the old version before it renames the new one into place: gone is nothing new yet.
        #expect(try other.read(nil, keys: keys).get().records.isEmpty)
        #expect(other.damage == nil)
        _ = try journal.append(.deviceName("y"))
        #expect(try other.read(try Fixture.read(path), keys: keys).get().records.count == 1)
        var third = follower()
        _ = try third.read(whole, keys: keys).get()
        #expect(try third.read(Array(whole.prefix(30)), keys: keys).damage == .truncated(verified: whole.count, found: 30))
    }

    @Test("an older copy of the journal put back is set aside")
    func rollback() throws {
        let journal = try writer()
        _ = try journal.append(.put(.random(), Fixture.content("old")))
        let older = try Fixture.read(path)
        _ = try journal.append(.delete(.random()))
        var reader = follower()
        _ = try reader.read(try Fixture.read(path), keys: keys).get()
        #expect(try reader.read(older, keys: keys).damage == .truncated(verified: try Fixture.read(path).count,
                                                                     found: older.count))
    }

    @Test("a journal from before a compaction put back after the compaction was read is set aside")
    func rollbackAcrossCompaction() throws {
        let journal = try writer()
        let put = try journal.append(.put(.random(), Fixture.content("kept")))
        _ = try journal.append(.deviceName("n"))
        let beforeCompaction = try Fixture.read(path)
        var merged = MergedCollection()
        var first = follower()
        for record in try first.read(beforeCompaction, keys: keys).get().records { merged.merge(record) }
        let snapshot = try journal.compact(keeping: merged.snapshot(of: device, horizons: [:], now: journal.clock.latest), horizon: [:])
        #expect(snapshot.map(\.sequence) == [3, 4, 5])
        #expect(snapshot.first?.clock == put.clock)
        #expect(snapshot.last?.change == .seen([:]))
        #expect(try #require(snapshot.last).clock > snapshot[1].clock)

        var reader = follower()
        _ = try reader.read(beforeCompaction, keys: keys).get()
        let compacted = try reader.readFile(keys: keys).get()
        #expect(compacted.records == snapshot)
        #expect(reader.checkpoint?.compaction == 1)
        #expect(try reader.read(beforeCompaction, keys: keys).damage == .rolledBack(verified: 1, found: 0))
    }

    @Test("a compacted journal whose numbering does not go on from the verified one is a fork")
    func compactionMustContinueNumbering() throws {
        let journal = try writer()
        _ = try (0..<3).map { _ in try journal.append(.deviceName("n")) }
        var reader = follower()
        _ = try reader.readFile(keys: keys).get()
        // A compaction numbered from 2, as a copy of the device restored from a backup taken after record 1 makes.
        let (header, chain) = try JournalHeader(collection: keys.collection, device: device, compaction: 1,
                                                firstSequence: 2).encode(keys: keys)
        let record = try JournalRecordCodec.seal(.deviceName("restored"), clock: .zero, sequence: 2, device: device,
                                                 previousMAC: chain, keys: keys)
        #expect(try reader.read(header + record.bytes, keys: keys).damage == .forked(sequence: 2))
    }

    @Test("two copies of one device writing on from the same journal are a fork for whoever read the other")
    func fork() throws {
        let journal = try writer()
        _ = try journal.append(.deviceName("shared"))
        let shared = try Fixture.read(path)
        _ = try journal.append(.deviceName("branch A, longer"))
        let branchA = try Fixture.read(path)

        // The machine restored from a backup: the same journal, another record 2.
        try Fixture.write(shared, to: path)
        let restored = try writer()
        _ = try restored.append(.deviceName("B"))
        _ = try restored.append(.deviceName("B again"))
        let branchB = try Fixture.read(path)
        #expect(branchB.count > branchA.count)

        var reader = follower()
        _ = try reader.read(branchA, keys: keys).get()
        #expect(try reader.read(branchB, keys: keys).damage == .forked(sequence: 2))
    }

    @Test("another device's journal copied over this one is refused, whether or not it was read before")
    func replacement() throws {
        let journal = try writer()
        _ = try journal.append(.deviceName("mine"))
        let stranger = DeviceID.random()
        let strangerJournal = try JournalWriter.open(folder: source, device: stranger, keys: keys).writer
        _ = try strangerJournal.append(.deviceName("theirs"))
        let theirs = try Fixture.read(source.journalPath(for: stranger))

        var fresh = follower()
        guard case .misplaced = try fresh.read(theirs, keys: keys).damage else {
            Issue.record("another device's journal was read as this one's")
            return
        }
        var reader = follower()
        _ = try reader.readFile(keys: keys).get()
        guard case .misplaced = try reader.read(theirs, keys: keys).damage else {
            Issue.record("another device's journal was read as this one's")
            return
        }
    }

    @Test("a checkpoint kept across a restart still catches an older copy put back meanwhile")
    func checkpointAcrossRestart() throws {
        let journal = try writer()
        _ = try journal.append(.deviceName("one"))
        let older = try Fixture.read(path)
        _ = try journal.append(.deviceName("two"))
        var reader = follower()
        _ = try reader.readFile(keys: keys).get()
        let kept = try #require(reader.checkpoint).encode()
        let restored = try JournalCheckpoint.decode(kept)
        #expect(restored == reader.checkpoint)
        var restarted = JournalFollower(folder: source, device: device, checkpoint: restored)
        #expect(try restarted.read(older, keys: keys).damage != nil)
        var resumed = JournalFollower(folder: source, device: device, checkpoint: restored)
        let third = try journal.append(.deviceName("three"))
        #expect(try resumed.readFile(keys: keys).get().records == [third])
        #expect(throws: SyncFormatError.self) { _ = try JournalCheckpoint.decode(kept + [0]) }
        #expect(throws: SyncFormatError.self) { _ = try JournalCheckpoint.decode(Array(kept.dropLast())) }
    }

    @Test("a follower's state survives a restart: checkpoint and the reason it set the journal aside, of every kind")
    func stateAcrossRestart() throws {
        let journal = try writer()
        _ = try journal.append(.deviceName("one"))
        var reader = follower()
        _ = try reader.readFile(keys: keys).get()
        let resumed = try JournalFollower(folder: source, device: device, state: reader.encodeState())
        #expect(resumed.checkpoint == reader.checkpoint && resumed.damage == nil)
        let fresh = try JournalFollower(folder: source, device: device, state: follower().encodeState())
        #expect(fresh.checkpoint == nil)

        let reasons: [JournalDamage] = [
            .malformed("record length 3 at offset 90"), .misplaced("the header names device x"),
            .tampered(sequence: nil), .tampered(sequence: 0), .tampered(sequence: 9),
            .outOfSequence(expected: 3, found: 5), .truncated(verified: 500, found: 0),
            .rolledBack(verified: 2, found: 1), .forked(sequence: 7),
        ]
        for reason in reasons {
            var aside = reader
            aside.setAside(reason)
            let state = aside.encodeState()
            let restored = try JournalFollower(folder: source, device: device, state: state)
            #expect(restored.damage == reason)
            var again = restored
            // Still set aside: the genuine file delivers nothing.
            #expect(try again.readFile(keys: keys).damage == reason)
            #expect(throws: SyncFormatError.self) {
                _ = try JournalFollower(folder: source, device: self.device, state: state + [0])
            }
        }
        #expect(throws: SyncFormatError.self) { _ = try JournalFollower(folder: source, device: device, state: []) }
    }

    @Test("running out of secure memory while reading is an error to retry, never damage")
    func resourceFailureIsNotDamage() async {
        // The pool is filled in a process of its own: doing it here would starve the suites running beside it.
        await #expect(processExitsWith: .success) {
            let keys = try Fixture.keys()
            let device = DeviceID.random()
            var (bytes, chain) = try JournalHeader(collection: keys.collection, device: device).encode(keys: keys)
            for sequence in 1...2 as ClosedRange<UInt64> {
                let framed = try JournalRecordCodec.seal(
                    .put(.random(), try Fixture.content("item", secret: "secret \(sequence)")),
                    clock: HybridTimestamp(milliseconds: sequence, counter: 0), sequence: sequence, device: device,
                    previousMAC: chain, keys: keys)
                bytes += framed.bytes
                chain = framed.mac
            }
            var follower = JournalFollower(folder: SyncFolder(root: "/nonexistent", collection: keys.collection),
                                           device: device)
            var held: [SecretBytes] = []
            while let buffer = try? SecretBytes(count: 64) {
                held.append(buffer)
                guard held.count < 1_000_000 else { exit(10) }  // A pool that never fills is a fallback.
            }
            do {
                _ = try follower.read(bytes, keys: keys)
                exit(11)
            } catch is CryptoError {
            } catch {
                exit(12)
            }
            guard follower.damage == nil, follower.checkpoint == nil else { exit(13) }
            held.removeAll()
            guard case .success(let read) = try follower.read(bytes, keys: keys), read.records.count == 2 else {
                exit(14)
            }
        }
    }

    @Test("a journal of another collection is refused")
    func otherCollection() throws {
        let otherKeys = try Fixture.keys()
        let otherFolder = SyncFolder(root: scratch.path, collection: otherKeys.collection)
        let journal = try JournalWriter.open(folder: otherFolder, device: device, keys: otherKeys).writer
        _ = try journal.append(.deviceName("elsewhere"))
        var reader = follower()
        #expect(try reader.read(try Fixture.read(otherFolder.journalPath(for: device)), keys: keys).damage
            == .tampered(sequence: nil))
    }
}

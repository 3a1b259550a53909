// SPDX-License-Identifier: Apache-2.0
// A device's own journal: durable appends, reopening, and the torn record a kill -9 leaves.

@testable import CollectionSync
import Glibc
import SecretCrypto
import Testing

@Suite("Sync: journal writer")
struct JournalWriterTests {
    let scratch: ScratchFolder
    let keys: SyncKeys
    let folder: SyncFolder
    let device = DeviceID.random()

    init() throws {
        scratch = try ScratchFolder()
        keys = try Fixture.keys()
        folder = SyncFolder(root: scratch.path, collection: keys.collection)
    }

    func readAll() throws -> Result<JournalRead, JournalDamage> {
        var follower = JournalFollower(folder: folder, device: device)
        return try follower.readFile(keys: keys)
    }

    @Test("appends are in the file when append returns; reopening gives every record back and numbering goes on")
    func appendAndReopen() throws {
        let wall = ManualWallClock()
        let written = try Fixture.journal(in: folder, device: device, keys: keys, count: 3, clock: wall)
        #expect(written.map(\.sequence) == [1, 2, 3])
        #expect(try readAll().get().records == written)
        #expect(try folder.devices() == [device])

        // The wall clock went back while the machine was off: the device's clock must not.
        wall.set(5)
        let opened = try JournalWriter.open(folder: folder, device: device, keys: keys, wallClock: wall.reading)
        #expect(opened.records == written)
        #expect(opened.discardedBytes == 0)
        let next = try opened.writer.append(.delete(.random()))
        #expect(next.sequence == 4)
        #expect(next.clock > written[2].clock)
        #expect(try readAll().get().records == written + [next])
    }

    @Test("a record cut short by a kill is cut off when the journal is reopened, and the next append takes its place")
    func tornTailIsCutOnReopen() throws {
        let written = try Fixture.journal(in: folder, device: device, keys: keys, count: 2)
        let path = folder.journalPath(for: device)
        let whole = try Fixture.read(path)
        // Part of a real record (its first 30 bytes), as a write interrupted by SIGKILL or a power cut leaves it.
        let other = try ScratchFolder()
        let donor = SyncFolder(root: other.path, collection: keys.collection)
        _ = try Fixture.journal(in: donor, device: device, keys: keys, count: 3)
        let donorBytes = try Fixture.read(donor.journalPath(for: device))
        let third = try Fixture.recordRanges(donorBytes, keys: keys).records[2]
        try Fixture.appendRaw(Array(donorBytes[third].prefix(30)), to: path)

        // Another device sees the torn record as not yet arrived, not as damage.
        let seen = try readAll().get()
        #expect(seen.records == written && seen.waitingForMore)

        let opened = try JournalWriter.open(folder: folder, device: device, keys: keys)
        #expect(opened.discardedBytes == 30)
        #expect(opened.records == written)
        #expect(try Fixture.read(path) == whole)
        let next = try opened.writer.append(.deviceName("after the crash"))
        #expect(next.sequence == 3)
        #expect(try readAll().get().records == written + [next])
    }

    @Test("a torn length field, and zeros a file system left after a crash, are cut off too")
    func tornLengthAndZeros() throws {
        _ = try Fixture.journal(in: folder, device: device, keys: keys, count: 1)
        let path = folder.journalPath(for: device)
        let whole = try Fixture.read(path)
        for tail in [[0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]] as [[UInt8]] {
            try Fixture.appendRaw(tail, to: path)
            let opened = try JournalWriter.open(folder: folder, device: device, keys: keys)
            #expect(opened.discardedBytes == tail.count)
            #expect(try Fixture.read(path) == whole)
        }
    }

    @Test("a journal whose header never fully reached the disk is made anew")
    func tornHeader() throws {
        try SyncFiles.ensureDirectory(folder.directory)
        let path = folder.journalPath(for: device)
        let (header, _) = try JournalHeader(collection: keys.collection, device: device).encode(keys: keys)
        try Fixture.write(Array(header.prefix(20)), to: path)
        let opened = try JournalWriter.open(folder: folder, device: device, keys: keys)
        #expect(opened.records.isEmpty)
        _ = try opened.writer.append(.deviceName("fresh"))
        #expect(try readAll().get().records.count == 1)
    }

    @Test("an own journal damaged beyond a torn tail is refused and left exactly as found")
    func damagedOwnJournal() throws {
        _ = try Fixture.journal(in: folder, device: device, keys: keys, count: 2)
        let path = folder.journalPath(for: device)
        var bytes = try Fixture.read(path)
        bytes[bytes.count - 50] ^= 1
        try Fixture.write(bytes, to: path)
        #expect(throws: JournalDamage.tampered(sequence: 2)) {
            _ = try JournalWriter.open(folder: folder, device: device, keys: keys)
        }
        #expect(try Fixture.read(path) == bytes)

        // Another device's journal under this device's name is refused the same way.
        let stranger = DeviceID.random()
        let elsewhere = try ScratchFolder()
        let otherFolder = SyncFolder(root: elsewhere.path, collection: keys.collection)
        _ = try Fixture.journal(in: otherFolder, device: stranger, keys: keys, count: 1)
        let strangerBytes = try Fixture.read(otherFolder.journalPath(for: stranger))
        try Fixture.write(strangerBytes, to: path)
        #expect(throws: JournalDamage.self) { _ = try JournalWriter.open(folder: folder, device: device, keys: keys) }
        #expect(try Fixture.read(path) == strangerBytes)
    }

    @Test("a journal replaced or written behind the writer's back is not appended to; reopening verifies it")
    func replacedBehindTheWritersBack() throws {
        let wall = ManualWallClock()
        let opened = try JournalWriter.open(folder: folder, device: device, keys: keys, wallClock: wall.reading)
        let first = try opened.writer.append(.deviceName("one"))
        let path = folder.journalPath(for: device)
        let copy = try Fixture.read(path)
        // An engine renames an identical copy over the journal: the descriptor now points at an unlinked file.
        try SyncFiles.replace(path, with: copy, directory: folder.directory)
        #expect(throws: SyncIOError.self) { try opened.writer.append(.deviceName("lost")) }
        let reopened = try JournalWriter.open(folder: folder, device: device, keys: keys, wallClock: wall.reading)
        #expect(reopened.records == [first])
        let second = try reopened.writer.append(.deviceName("two"))
        // Bytes added by someone else.
        try Fixture.appendRaw([0, 0], to: path)
        #expect(throws: SyncIOError.self) { try reopened.writer.append(.deviceName("lost")) }
        #expect(try readAll().get().records == [first, second])
    }

    @Test("after a compaction that kept only older changes, a restart's clock goes on from the latest reading")
    func clockSurvivesCompaction() throws {
        let wall = ManualWallClock(1_000)
        let opened = try JournalWriter.open(folder: folder, device: device, keys: keys, wallClock: wall.reading)
        let kept = try opened.writer.append(.deviceName("kept"))
        wall.advance(50)
        let dropped = try opened.writer.append(.delete(.random()))
        try opened.writer.compact(keeping: [SnapshotChange(clock: kept.clock, change: kept.change)], horizon: [:])
        #expect(opened.writer.clock.latest > dropped.clock)
        wall.set(0)
        let reopened = try JournalWriter.open(folder: folder, device: device, keys: keys, wallClock: wall.reading)
        #expect(try reopened.writer.append(.deviceName("after restart")).clock > dropped.clock)
        #expect(reopened.writer.header.compaction == 1)
    }

    @Test("the folder lists only journals: engine temporaries and conflict copies are not devices")
    func listing() throws {
        _ = try Fixture.journal(in: folder, device: device, keys: keys, count: 1)
        for name in [".syncthing.\(device).journal.tmp", "\(device).journal.tmp", "\(device).sync-conflict.journal",
                     "wrap", "README"] {
            try Fixture.write([1, 2, 3], to: folder.directory + "/" + name)
        }
        #expect(try folder.devices() == [device])
    }
}

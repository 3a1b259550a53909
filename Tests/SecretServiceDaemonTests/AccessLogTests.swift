// SPDX-License-Identifier: Apache-2.0
// The access log file: private, sealed per collection, a torn last record cut off without harm, rotation, keys
// that are locked or change.

import Foundation
import Logging
import SecretCrypto
import SecretStore
@testable import SecretServiceDaemon
import Testing

/// The log keys a test's collections have, changed as the test locks, unlocks or re-keys them.
actor TestLogKeys {
    private var keys: [String: CollectionLogKey]

    init(_ collections: [String] = ["login"]) throws {
        var keys: [String: CollectionLogKey] = [:]
        for collection in collections { keys[collection] = .available(try SecureRandom.secretBytes(count: 32)) }
        self.keys = keys
    }

    func key(_ collection: String) -> CollectionLogKey { keys[collection] ?? .absent }
    func collections() -> [String] {
        keys.filter { if case .absent = $0.value { false } else { true } }.map(\.key)
    }
    func set(_ collection: String, _ key: CollectionLogKey) { keys[collection] = key }
    func rekey(_ collection: String) throws { keys[collection] = .available(try SecureRandom.secretBytes(count: 32)) }

    nonisolated func log(_ directory: String?, maximumBytes: Int = AccessLog.defaultMaximumBytes) -> AccessLog {
        AccessLog(directory: directory, maximumBytes: maximumBytes, keys: { await self.key($0) },
                  collections: { await self.collections() }, logger: Logger(label: "test"))
    }
}

@Suite("Access log")
struct AccessLogTests {
    /// A fresh directory, removed by the caller.
    static func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-accesslog-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func entry(_ n: Int, outcome: AccessLogEntry.Outcome = .alwaysAllowed,
                      application: String = "exe:/usr/bin/b@1:2", collection: String = "login") -> AccessLogEntry {
        AccessLogEntry(time: UInt64(1_000 + n), outcome: outcome, application: application, processID: UInt32(n),
                       collection: collection, item: "item\(n)")
    }

    @Test("entries round-trip through a private file that shows none of them in clear")
    func roundTrip() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keys = try TestLogKeys()
        let log = keys.log(directory)
        // A collection without a key of its own (in memory, or deleted since) is sealed with login's key.
        let odd = AccessLogEntry(time: 5, outcome: .refused, application: "script:/usr/bin/python3@1:2 /a\tb\nc\\d",
                                 processID: 7, collection: "session", item: "", requester: "exe:/usr/bin/coffer@3:4")
        await log.record(odd)
        await log.record(Self.entry(1))
        let path = directory + "/" + AccessLog.fileName
        let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for clear in ["python3", "/usr/bin/b", "coffer@", "refused", "always-allowed", "item1", "session"] {
            #expect(bytes.range(of: Data(clear.utf8)) == nil, "\(clear) is in the file in clear")
        }
        let reading = await keys.log(directory).entries()
        #expect(reading == AccessLogReading(entries: [odd, Self.entry(1)]))
        #expect(await keys.log(directory).entries(since: 1_000).entries == [Self.entry(1)])
    }

    @Test("a torn last record is reported, then cut off before the next entry; earlier entries stay intact")
    func tornTail() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/" + AccessLog.fileName
        let keys = try TestLogKeys()
        do {
            let log = keys.log(directory)
            await log.record(Self.entry(1))
            await log.record(Self.entry(2))
        }
        // A crash in the middle of a write leaves part of a record.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: [0, 0, 0, 90, 1, 0, 0])
        try handle.close()
        let log = keys.log(directory)
        let before = await log.entries()
        #expect(before.entries == [Self.entry(1), Self.entry(2)])
        #expect(before.problems.count == 1 && before.problems[0].contains("ends inside a record"), "\(before)")
        await log.record(Self.entry(4))
        let after = await log.entries()
        #expect(after.entries == [Self.entry(1), Self.entry(2), Self.entry(4)])
        #expect(after.problems.count == 1 && after.problems[0].contains("torn last record"), "\(after.problems)")
        // A widened file (a loose mode someone set) is made private again on open.
        chmod(path, 0o644)
        await keys.log(directory).record(Self.entry(5))
        let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
    }

    @Test("the log rotates at its bound: at most two files, the newest entries kept, each file's chain intact")
    func rotation() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bound = 1_024
        let keys = try TestLogKeys(["login", "work"])
        let log = keys.log(directory, maximumBytes: bound)
        for n in 0..<200 { await log.record(Self.entry(n, collection: n % 3 == 0 ? "work" : "login")) }
        let path = directory + "/" + AccessLog.fileName
        for file in [path, path + AccessLog.rotatedSuffix] {
            let size = try #require(FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
            #expect(size <= bound, "\(file) is \(size) bytes")
            let mode = try #require(FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
            #expect(mode == 0o600)
        }
        let kept = await log.entries()
        #expect(kept.problems.isEmpty, "\(kept.problems)")
        #expect(kept.entries.last == Self.entry(199, collection: "login"))
        #expect(kept.entries.count < 200 && kept.entries.count > 10)
        // Contiguous: the newest run of entries, oldest first.
        #expect(kept.entries.map(\.processID) == Array(UInt32(200 - kept.entries.count)..<200))
    }

    @Test("a record numbered at the end of the range is damage: read without a crash, set aside before the next write")
    func recordAtEndOfRange() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/" + AccessLog.fileName
        let keys = try TestLogKeys()
        let fileID = [UInt8](repeating: 7, count: AccessLogFormat.fileIDCount)
        guard case .available(let secret) = await keys.key("login") else { Issue.record("no key"); return }
        let key = try AccessLogKey(secret)
        let line = try SecretBytes(copying: Self.entry(1).line)
        let last = try AccessLogRecord(kind: .entry, index: .max, collection: "login", sequence: .max, key: key,
                                       payload: line, fileID: fileID, previousTag: nil)
        let after = try AccessLogRecord(kind: .entry, index: 2, collection: "login", sequence: 1, key: key,
                                        payload: line, fileID: fileID, previousTag: last.tag)
        try Data(AccessLogFormat.header(fileID: fileID) + last.encoded + after.encoded)
            .write(to: URL(fileURLWithPath: path))

        let reading = await keys.log(directory).entries()
        #expect(reading.problems.contains { $0.contains("out of order") }, "\(reading.problems)")
        let log = keys.log(directory)
        await log.record(Self.entry(2))
        #expect(FileManager.default.fileExists(atPath: path + AccessLog.rotatedSuffix))
        let later = await log.entries()
        #expect(later.entries.last == Self.entry(2), "\(later)")
        #expect(later.problems.contains { $0.contains("numbered past any written") }, "\(later.problems)")
    }

    @Test("without a data directory the newest entries are kept in memory")
    func inMemory() async throws {
        let log = try TestLogKeys().log(nil, maximumBytes: 64 * 10)
        for n in 0..<25 { await log.record(Self.entry(n)) }
        let kept = await log.entries().entries
        #expect(kept.count == 10 && kept.last == Self.entry(24))
    }

    @Test("an entry of a locked collection waits for its key; entries of a locked collection are counted, not shown")
    func lockedCollections() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keys = try TestLogKeys(["login", "work"])
        let workKey = await keys.key("work")
        await keys.set("work", .locked)
        let log = keys.log(directory)
        await log.record(Self.entry(1, collection: "work"))
        await log.record(Self.entry(2))
        #expect(await log.entries() == AccessLogReading(entries: [Self.entry(2)]))
        // Unlocked: the waiting entry is sealed with its own collection's key and written.
        await keys.set("work", workKey)
        #expect(await log.entries().entries == [Self.entry(2), Self.entry(1, collection: "work")])
        await keys.set("work", .locked)
        #expect(await log.entries() == AccessLogReading(entries: [Self.entry(2)], locked: 1))
        // Another user's call concerns no collection: sealed with login's key, and waits while login is locked.
        let loginKey = await keys.key("login")
        await keys.set("login", .locked)
        let other = AccessLogEntry(time: 9, outcome: .otherUser, application: "uid:65534", processID: 3,
                                   collection: "")
        await log.record(other)
        #expect(await log.entries() == AccessLogReading(locked: 2))
        await keys.set("work", workKey)
        await keys.set("login", loginKey)
        #expect(await log.entries().entries == [Self.entry(2), Self.entry(1, collection: "work"), other])
    }

    @Test("a collection's key change keeps its earlier entries readable, also after a restart")
    func keyChange() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keys = try TestLogKeys()
        let log = keys.log(directory)
        await log.record(Self.entry(1))
        try await keys.rekey("login")
        await log.record(Self.entry(2))
        try await keys.rekey("login")
        await log.record(Self.entry(3))
        #expect(await log.entries() == AccessLogReading(entries: [Self.entry(1), Self.entry(2), Self.entry(3)]))
        #expect(await keys.log(directory).entries().entries.count == 3)
        // A change the log was never told of (cofferd writes each as it happens) leaves records it cannot open
        // although their keyring is unlocked: reported, one by one.
        try await keys.rekey("login")
        let restarted = keys.log(directory)
        await restarted.record(Self.entry(4))
        let reading = await restarted.entries()
        #expect(reading.entries == [Self.entry(4)])
        #expect(reading.problems.count == 3, "\(reading.problems)")
        #expect(reading.problems.allSatisfy { $0.contains("a key the log does not know") }, "\(reading.problems)")
    }

    @Test("entries of a deleted collection are counted as unreadable, not taken for tampering")
    func deletedCollection() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keys = try TestLogKeys(["login", "work"])
        let log = keys.log(directory)
        await log.record(Self.entry(1, collection: "work"))
        await keys.set("work", .absent)
        // Its deletion itself is sealed with login's key.
        let deletion = AccessLogEntry(time: 1_002, outcome: .deleted, application: "exe:/usr/bin/b@1:2",
                                      processID: 2, collection: "work")
        await log.record(deletion)
        #expect(await log.entries() == AccessLogReading(entries: [deletion], keyGone: 1))
    }

    @Test("plain-text logs of an earlier version are set aside, not read as damaged sealed ones")
    func earlierVersion() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/" + AccessLog.fileName
        // Their lines were of the line form's version 1, without a count.
        let plain = Data(("1\t1001\talways-allowed\texe:/usr/bin/b@1:2\t1\tlogin\titem1\t\n"
                          + "1\t1002\talways-allowed\texe:/usr/bin/b@1:2\t2\tlogin\titem2\t\n").utf8)
        try plain.write(to: URL(fileURLWithPath: path))
        try plain.write(to: URL(fileURLWithPath: path + AccessLog.rotatedSuffix))
        let keys = try TestLogKeys()
        let log = keys.log(directory)
        #expect(await log.entries() == AccessLogReading())
        await log.record(Self.entry(3))
        #expect(await log.entries() == AccessLogReading(entries: [Self.entry(3)]))
        for name in [path, path + AccessLog.rotatedSuffix] {
            #expect(FileManager.default.contents(atPath: name + ".unsealed") == plain)
        }
    }

    @Test("lines that are not entries are skipped, not guessed at")
    func foreignLines() {
        #expect(AccessLogEntry(line: Array("2\t1\trefused\ta\t1\tc\ti\t".utf8)[...]) == nil)
        #expect(AccessLogEntry(line: Array("1\t1\tmaybe\ta\t1\tc\ti\t".utf8)[...]) == nil)
        #expect(AccessLogEntry(line: Array("1\t1\trefused\ta\\q\t1\tc\ti\t".utf8)[...]) == nil)
        #expect(AccessLogEntry(line: Self.entry(1).line.dropLast()) == Self.entry(1))
    }
}

@Suite("Access log: key changes told by the store")
struct AccessLogKeyChangeTests {
    @Test("a key change told right after a restart is written at once, so older entries open after the next one")
    func toldAfterRestart() async throws {
        let directory = try AccessLogTests.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keys = try TestLogKeys()
        await keys.log(directory).record(AccessLogTests.entry(1))
        guard case .available(let old) = await keys.key("login") else { throw CancellationError() }
        // A restarted cofferd never sealed with the old key; the store tells it when the password change happens.
        let restarted = keys.log(directory)
        try await keys.rekey("login")
        guard case .available(let new) = await keys.key("login") else { throw CancellationError() }
        try await restarted.keyChanged(of: "login", from: old, to: new)
        let later = keys.log(directory)
        #expect(await later.entries() == AccessLogReading(entries: [AccessLogTests.entry(1)]))
    }

    /// The kinds of the records of a log file, in order.
    static func recordKinds(_ path: String) throws -> [AccessLogRecord.Kind] {
        var rest = try #require(AccessLogFile.read(path))[...].dropFirst(AccessLogFormat.headerCount)
        var kinds: [AccessLogRecord.Kind] = []
        while case .record(let record, let count) = AccessLogRecord.parse(rest) {
            kinds.append(record.kind)
            rest = rest.dropFirst(count)
        }
        #expect(rest.isEmpty)
        return kinds
    }

    @Test("a key change written for a change that never took place is passed over: the old key opens every entry, and no record seals the key that was not used")
    func changeThatNeverTookPlace() async throws {
        let directory = try AccessLogTests.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keys = try TestLogKeys()
        let log = keys.log(directory)
        await log.record(AccessLogTests.entry(1))
        guard case .available(let old) = await keys.key("login") else { throw CancellationError() }
        // The store announces a new key, then keeps the old one (the new file could not be written, or cofferd
        // stopped before it was in place).
        try await log.keyChanged(of: "login", from: old, to: try SecureRandom.secretBytes(count: 32))
        await log.record(AccessLogTests.entry(2))
        #expect(await log.entries() == AccessLogReading(entries: [AccessLogTests.entry(1), AccessLogTests.entry(2)]))
        let restarted = keys.log(directory)
        await restarted.record(AccessLogTests.entry(3))
        #expect(await restarted.entries()
                == AccessLogReading(entries: [1, 2, 3].map { AccessLogTests.entry($0) }))
        #expect(try Self.recordKinds(directory + "/" + AccessLog.fileName) == [.entry, .keyChange, .entry, .entry])
    }

    @Test("a key change with no log file makes none: there is no older record to keep readable")
    func keyChangeWithoutLog() async throws {
        let directory = try AccessLogTests.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keys = try TestLogKeys()
        guard case .available(let old) = await keys.key("login") else { throw CancellationError() }
        try await keys.log(directory).keyChanged(of: "login", from: old, to: try SecureRandom.secretBytes(count: 32))
        #expect(!FileManager.default.fileExists(atPath: directory + "/" + AccessLog.fileName))
    }

    @Test("a key change that cannot be written is an error for the store, which then keeps the old key")
    func unwritableKeyChange() async throws {
        let directory = try AccessLogTests.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keys = try TestLogKeys()
        // Not a file the log can open, whoever runs the test.
        try FileManager.default.createDirectory(atPath: directory + "/" + AccessLog.fileName,
                                                withIntermediateDirectories: false)
        guard case .available(let old) = await keys.key("login") else { throw CancellationError() }
        await #expect(throws: (any Error).self) {
            try await keys.log(directory).keyChanged(of: "login", from: old,
                                                     to: try SecureRandom.secretBytes(count: 32))
        }
    }
}

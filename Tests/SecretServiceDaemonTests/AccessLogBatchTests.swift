// SPDX-License-Identifier: Apache-2.0
// Uses written together: repeated uses counted as one entry, many entries sealed in one record, and files of the
// format before counts still read.

import Foundation
import SecretCrypto
import SecretStore
@testable import SecretServiceDaemon
import Testing

@Suite("Access log: uses written together")
struct AccessLogBatchTests {
    static func use(_ time: UInt64, item: String = "item1", processID: UInt32 = 7,
                    outcome: AccessLogEntry.Outcome = .read) -> AccessLogEntry {
        AccessLogEntry(time: time, outcome: outcome, application: "exe:/usr/bin/b@1:2", processID: processID,
                       collection: "login", item: item)
    }

    /// The records of the log file.
    static func records(_ path: String) throws -> [AccessLogRecord] {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var records: [AccessLogRecord] = []
        var rest = bytes.dropFirst(AccessLogFormat.headerCount)
        while case .record(let record, let length) = AccessLogRecord.parse(rest) {
            records.append(record)
            rest = rest.dropFirst(length)
        }
        #expect(rest.isEmpty, "\(rest.count) bytes after the last record")
        return records
    }

    @Test("50 reads of one item by one process are one entry counting 50, from the first time to the last")
    func repeatedReads() async throws {
        let directory = try AccessLogTests.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keys = try TestLogKeys()
        let log = keys.log(directory)
        // Interleaved with another item's reads and another process's: those stay entries of their own.
        for n in 0..<50 {
            await log.noteUses([Self.use(1_000 + UInt64(n))])
            if n % 10 == 0 { await log.noteUses([Self.use(1_000 + UInt64(n), item: "item2")]) }
        }
        await log.noteUses([Self.use(1_100, processID: 8)])
        await log.flushUses()
        let records = try Self.records(directory + "/" + AccessLog.fileName)
        #expect(records.count == 1, "\(records.count) records")
        let reading = await log.entries()
        #expect(reading.problems.isEmpty, "\(reading.problems)")
        #expect(reading.entries == [
            AccessLogEntry(time: 1_000, outcome: .read, application: "exe:/usr/bin/b@1:2", processID: 7,
                           collection: "login", item: "item1", count: 50, lastTime: 1_049),
            AccessLogEntry(time: 1_000, outcome: .read, application: "exe:/usr/bin/b@1:2", processID: 7,
                           collection: "login", item: "item2", count: 5, lastTime: 1_040),
            Self.use(1_100, processID: 8),
        ])
        #expect(reading.entries.reduce(0) { $0 + $1.count } == 56)
        // Read back after a restart, and `since` keeps an entry whose last use is at or after it.
        #expect(await keys.log(directory).entries(since: 1_045).entries.map(\.item) == ["item1", "item1"])
    }

    @Test("a decision is written after the uses before it, which are counted too, and is not merged with them")
    func decisionAfterUses() async throws {
        let directory = try AccessLogTests.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keys = try TestLogKeys()
        let log = keys.log(directory)
        for n in 0..<3 { await log.noteUses([Self.use(2_000 + UInt64(n))]) }
        let refusal = Self.use(2_010, outcome: .refused)
        await log.record(refusal)
        await log.record(refusal)
        let entries = await log.entries().entries
        #expect(entries == [Self.use(2_000).counted(3, until: 2_002), refusal, refusal])
    }

    @Test("many different uses share few records, read back in order; records stay far below the file's bound")
    func manyPerRecord() async throws {
        let directory = try AccessLogTests.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keys = try TestLogKeys(["login", "work"])
        let log = keys.log(directory)
        var uses = (0..<400).map { Self.use(3_000 + UInt64($0), item: "item\($0)") }
        // A use of another collection in between starts another record, so the order stays as it happened.
        uses.insert(AccessLogEntry(time: 3_200, outcome: .changed, application: "exe:/usr/bin/b@1:2", processID: 7,
                                   collection: "work", item: "w"), at: 200)
        await log.noteUses(uses)
        await log.flushUses()
        let records = try Self.records(directory + "/" + AccessLog.fileName)
        #expect(records.count >= 3 && records.count < 20, "\(records.count) records")
        #expect(records.allSatisfy { $0.encoded.count <= 20 * 1024 })
        let reading = await log.entries()
        #expect(reading.problems.isEmpty, "\(reading.problems)")
        #expect(reading.entries == uses)
    }

    @Test("a batch larger than the file's bound rotates between its records: both files bounded, the newest kept")
    func batchRotation() async throws {
        let directory = try AccessLogTests.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bound = 2_048
        let keys = try TestLogKeys()
        let log = keys.log(directory, maximumBytes: bound)
        let uses = (0..<300).map { Self.use(4_000 + UInt64($0), item: "item\($0)") }
        await log.noteUses(uses)
        await log.flushUses()
        let path = directory + "/" + AccessLog.fileName
        for file in [path, path + AccessLog.rotatedSuffix] {
            let size = try #require(FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
            #expect(size <= bound, "\(file) is \(size) bytes")
        }
        let kept = await log.entries()
        #expect(kept.problems.isEmpty, "\(kept.problems)")
        #expect(kept.entries.count > 10 && kept.entries.count < 300)
        #expect(kept.entries == Array(uses.suffix(kept.entries.count)))
    }

    @Test("a line carries its count and last time; lines of the other version than their file's are refused")
    func lineVersions() throws {
        let counted = Self.use(5).counted(12, until: 9)
        #expect(String(decoding: counted.line, as: UTF8.self)
                == "2\t5\tread\texe:/usr/bin/b@1:2\t7\tlogin\titem1\t\t12\t9\n")
        #expect(AccessLogEntry(line: counted.line.dropLast()) == counted)
        let first = Array("1\t5\tread\texe:/usr/bin/b@1:2\t7\tlogin\titem1\t".utf8)
        #expect(AccessLogEntry(line: first[...], version: "1") == Self.use(5))
        #expect(AccessLogEntry(line: first[...]) == nil)
        #expect(AccessLogEntry(line: counted.line.dropLast(), version: "1") == nil)
        // A count of zero, or a last time before the first, is no entry.
        for bad in ["2\t5\tread\ta\t7\tc\ti\t\t0\t9", "2\t5\tread\ta\t7\tc\ti\t\t2\t4"] {
            #expect(AccessLogEntry(line: Array(bad.utf8)[...]) == nil, "\(bad)")
        }
        // Several lines in one record are a version 2 file's; a version 1 record holds one.
        let two = counted.line + Self.use(6).line
        #expect(AccessLogReader.entries(in: two, fileVersion: 2) == [counted, Self.use(6)])
        #expect(AccessLogReader.entries(in: first + [10] + first + [10], fileVersion: 1) == nil)
        #expect(AccessLogReader.entries(in: first + [10], fileVersion: 1) == [Self.use(5)])
        #expect(AccessLogReader.entries(in: Array(two.dropLast()), fileVersion: 2) == nil)
    }

    @Test("a file of version 1 is still read, moved aside before new entries are written, and read without problems")
    func versionOneFile() async throws {
        let directory = try AccessLogTests.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keys = try TestLogKeys()
        guard case .available(let secret) = await keys.key("login") else { throw CancellationError() }
        let key = try AccessLogKey(secret)
        let fileID = SecureRandom.nonce(count: AccessLogFormat.fileIDCount)
        var bytes = AccessLogFormat.magic + [1] + fileID
        var previousTag: [UInt8]?
        for n in 1...2 {
            let line = Array("1\t\(n)\tread\texe:/usr/bin/b@1:2\t7\tlogin\titem1\t\n".utf8)
            let record = try AccessLogRecord(kind: .entry, index: UInt64(n), collection: "login",
                                             sequence: UInt64(n), key: key, payload: try SecretBytes(copying: line),
                                             fileID: fileID, previousTag: previousTag)
            bytes += record.encoded
            previousTag = record.tag
        }
        let path = directory + "/" + AccessLog.fileName
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let log = keys.log(directory)
        #expect(await log.entries() == AccessLogReading(entries: [Self.use(1), Self.use(2)]))
        await log.record(Self.use(3, outcome: .refused))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + AccessLog.rotatedSuffix)) == Data(bytes))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path))[AccessLogFormat.magic.count] == 2)
        #expect(await keys.log(directory).entries()
                == AccessLogReading(entries: [Self.use(1), Self.use(2), Self.use(3, outcome: .refused)]))
        // Its version byte set to the current version does not make its records readable as such.
        bytes[AccessLogFormat.magic.count] = 2
        try Data(bytes).write(to: URL(fileURLWithPath: path + AccessLog.rotatedSuffix))
        let changed = await keys.log(directory).entries()
        #expect(changed.problems.count == 2, "\(changed.problems)")
        #expect(changed.entries == [Self.use(3, outcome: .refused)])
    }
}

extension AccessLogEntry {
    func counted(_ count: UInt32, until last: UInt64) -> AccessLogEntry {
        var entry = self
        (entry.count, entry.lastTime) = (count, last)
        return entry
    }
}

// SPDX-License-Identifier: Apache-2.0
// The access log file: private, line per entry, a torn last line cut off without harm to earlier ones, rotation.

import Foundation
import Logging
@testable import SecretServiceDaemon
import Testing

@Suite("Access log")
struct AccessLogTests {
    /// A fresh directory, removed by the caller.
    static func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-accesslog-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func entry(_ n: Int, outcome: AccessLogEntry.Outcome = .alwaysAllowed,
                      application: String = "exe:/usr/bin/b@1:2") -> AccessLogEntry {
        AccessLogEntry(time: UInt64(1_000 + n), outcome: outcome, application: application, processID: UInt32(n),
                       collection: "login", item: "\(n)")
    }

    @Test("entries round-trip through a file only the user can read, and persist for the next reader")
    func roundTrip() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = AccessLog(directory: directory, logger: Logger(label: "test"))
        let odd = AccessLogEntry(time: 5, outcome: .refused, application: "script:/usr/bin/python3@1:2 /a\tb\nc\\d",
                                 processID: 7, collection: "c", item: "", requester: "exe:/usr/bin/coffer@3:4")
        await log.record(odd)
        await log.record(Self.entry(1))
        let path = directory + "/" + AccessLog.fileName
        let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        // One line per entry: the tab and newline of the path are escaped.
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.split(separator: "\n").count == 2, "\(text)")
        let reader = AccessLog(directory: directory, logger: Logger(label: "test"))
        #expect(await reader.entries() == [odd, Self.entry(1)])
        #expect(await reader.entries(since: 1_000) == [Self.entry(1)])
    }

    @Test("a torn last line is ignored and cut off before the next entry; earlier entries stay intact")
    func tornTail() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/" + AccessLog.fileName
        do {
            let log = AccessLog(directory: directory, logger: Logger(label: "test"))
            await log.record(Self.entry(1))
            await log.record(Self.entry(2))
        }
        // A crash in the middle of a write leaves part of a line.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Array(Self.entry(3).line.prefix(20)))
        try handle.close()
        let log = AccessLog(directory: directory, logger: Logger(label: "test"))
        #expect(await log.entries() == [Self.entry(1), Self.entry(2)])
        await log.record(Self.entry(4))
        #expect(await log.entries() == [Self.entry(1), Self.entry(2), Self.entry(4)])
        // Also a widened file (a loose mode someone set) is made private again on open.
        chmod(path, 0o644)
        let again = AccessLog(directory: directory, logger: Logger(label: "test"))
        await again.record(Self.entry(5))
        let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
    }

    @Test("the log rotates at its bound: at most two files, the newest entries kept")
    func rotation() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bound = 1_024
        let log = AccessLog(directory: directory, maximumBytes: bound, logger: Logger(label: "test"))
        for n in 0..<200 { await log.record(Self.entry(n)) }
        let path = directory + "/" + AccessLog.fileName
        for file in [path, path + AccessLog.rotatedSuffix] {
            let size = try #require(FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
            #expect(size <= bound, "\(file) is \(size) bytes")
            let mode = try #require(FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
            #expect(mode == 0o600)
        }
        let kept = await log.entries()
        #expect(kept.last == Self.entry(199))
        #expect(kept.count < 200 && kept.count > 10)
        // Contiguous: the newest run of entries, oldest first.
        #expect(kept.map(\.processID) == Array(UInt32(200 - kept.count)..<200))
    }

    @Test("without a data directory the newest entries are kept in memory")
    func inMemory() async {
        let log = AccessLog(directory: nil, maximumBytes: 64 * 10, logger: Logger(label: "test"))
        for n in 0..<25 { await log.record(Self.entry(n)) }
        let kept = await log.entries()
        #expect(kept.count == 10 && kept.last == Self.entry(24))
    }

    @Test("lines that are not entries are skipped, not guessed at")
    func foreignLines() {
        #expect(AccessLogEntry(line: Array("2\t1\trefused\ta\t1\tc\ti\t".utf8)[...]) == nil)
        #expect(AccessLogEntry(line: Array("1\t1\tmaybe\ta\t1\tc\ti\t".utf8)[...]) == nil)
        #expect(AccessLogEntry(line: Array("1\t1\trefused\ta\\q\t1\tc\ti\t".utf8)[...]) == nil)
        #expect(AccessLogEntry(line: Self.entry(1).line.dropLast()) == Self.entry(1))
    }
}

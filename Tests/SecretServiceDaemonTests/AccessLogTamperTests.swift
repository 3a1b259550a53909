// SPDX-License-Identifier: Apache-2.0
// Changes made to the sealed access log from outside cofferd are reported when it is read.

import Foundation
@testable import SecretServiceDaemon
import Testing

@Suite("Access log: tampering is reported")
struct AccessLogTamperTests {
    /// A log of `count` entries of two collections, its path, and the byte ranges of its records in the file.
    static func written(_ count: Int = 4) async throws -> (TestLogKeys, String, [Range<Int>]) {
        let directory = try AccessLogTests.directory()
        let keys = try TestLogKeys(["login", "work"])
        let log = keys.log(directory)
        for n in 1...count { await log.record(AccessLogTests.entry(n, collection: n % 2 == 0 ? "work" : "login")) }
        let path = directory + "/" + AccessLog.fileName
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var ranges: [Range<Int>] = []
        var rest = bytes.dropFirst(AccessLogFormat.headerCount)
        while case .record(_, let length) = AccessLogRecord.parse(rest) {
            ranges.append(rest.startIndex..<rest.startIndex + length)
            rest = rest.dropFirst(length)
        }
        #expect(ranges.count == count && rest.isEmpty)
        return (keys, path, ranges)
    }

    static func rewrite(_ path: String, _ change: (inout [UInt8]) -> Void) throws {
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        change(&bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func reading(_ keys: TestLogKeys, _ path: String) async -> AccessLogReading {
        await keys.log(String(path.dropLast(AccessLog.fileName.count + 1))).entries()
    }

    @Test("an untouched log reads whole, without problems")
    func untouched() async throws {
        let (keys, path, _) = try await Self.written()
        defer { try? FileManager.default.removeItem(atPath: String(path.dropLast(AccessLog.fileName.count + 1))) }
        let reading = await Self.reading(keys, path)
        #expect(reading.problems.isEmpty && reading.entries.count == 4, "\(reading)")
    }

    @Test("a changed byte, in the sealed part or in the clear fields, is reported")
    func editedByte() async throws {
        for offset in [-3, -40, 6] {  // the tag, the ciphertext, the record's index
            let (keys, path, ranges) = try await Self.written()
            defer { try? FileManager.default.removeItem(atPath: String(path.dropLast(AccessLog.fileName.count + 1))) }
            let at = offset < 0 ? ranges[1].upperBound + offset : ranges[1].lowerBound + offset
            try Self.rewrite(path) { $0[at] ^= 0x01 }
            let reading = await Self.reading(keys, path)
            #expect(!reading.problems.isEmpty, "byte \(offset) of record 2: \(reading)")
            #expect(!reading.entries.contains(AccessLogTests.entry(2, collection: "work")), "\(reading)")
        }
    }

    @Test("any one byte of the file changed is reported")
    func everyByte() async throws {
        let (keys, path, _) = try await Self.written(2)
        defer { try? FileManager.default.removeItem(atPath: String(path.dropLast(AccessLog.fileName.count + 1))) }
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        for offset in 0..<original.count {
            var changed = original
            changed[offset] ^= 0x01
            try changed.write(to: URL(fileURLWithPath: path))
            let reading = await Self.reading(keys, path)
            #expect(!reading.problems.isEmpty, "byte \(offset) of \(original.count) changed unnoticed: \(reading)")
        }
    }

    @Test("random bytes after a valid header, or a cut inside a record, are reported without a crash")
    func garbage() async throws {
        let (keys, path, ranges) = try await Self.written(2)
        defer { try? FileManager.default.removeItem(atPath: String(path.dropLast(AccessLog.fileName.count + 1))) }
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var generator = SystemRandomNumberGenerator()
        for round in 0..<200 {
            var bytes = Array(original.prefix(AccessLogFormat.headerCount))
            bytes += (0..<Int.random(in: 0...300, using: &generator)).map { _ in UInt8.random(in: 0...255) }
            if round % 4 == 0 { bytes = Array(original.prefix(Int.random(in: 1..<original.count))) }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let reading = await Self.reading(keys, path)
            // Whole records cut off the end are the one change an offline reading cannot see (documented).
            let atBoundary = bytes.count == AccessLogFormat.headerCount
                || ranges.contains { $0.upperBound == bytes.count }
            #expect(atBoundary || !reading.problems.isEmpty, "round \(round): \(bytes.count) bytes")
        }
    }

    @Test("a removed record, and two records swapped, are reported")
    func removedOrReordered() async throws {
        do {
            let (keys, path, ranges) = try await Self.written()
            defer { try? FileManager.default.removeItem(atPath: String(path.dropLast(AccessLog.fileName.count + 1))) }
            try Self.rewrite(path) { $0.removeSubrange(ranges[1]) }
            let reading = await Self.reading(keys, path)
            #expect(reading.problems.contains { $0.contains("missing or out of order") }, "\(reading)")
        }
        do {
            let (keys, path, ranges) = try await Self.written()
            defer { try? FileManager.default.removeItem(atPath: String(path.dropLast(AccessLog.fileName.count + 1))) }
            try Self.rewrite(path) { bytes in
                let first = Array(bytes[ranges[0]]), second = Array(bytes[ranges[2]])  // both of login
                bytes.replaceSubrange(ranges[2], with: first)
                bytes.replaceSubrange(ranges[0], with: second)
            }
            let reading = await Self.reading(keys, path)
            #expect(!reading.problems.isEmpty, "\(reading)")
        }
    }

    @Test("a file cut short is reported, also when whole records are cut while cofferd runs")
    func truncated() async throws {
        let (keys, path, ranges) = try await Self.written()
        let directory = String(path.dropLast(AccessLog.fileName.count + 1))
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Inside a record.
        truncate(path, off_t(ranges[3].upperBound - 5))
        let cut = await Self.reading(keys, path)
        #expect(cut.problems.contains { $0.contains("ends inside a record") }, "\(cut)")
        // Whole records, behind the back of the running log.
        let running = keys.log(directory)
        await running.record(AccessLogTests.entry(5))
        #expect(await running.entries().entries.count == 4)
        let size = try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        truncate(path, off_t(ranges[1].upperBound))
        let reading = await running.entries()
        #expect(reading.problems.contains { $0.contains("shorter than cofferd wrote it") }, "\(reading) \(size)")
    }

    @Test("records moved from the older file into the newer one do not open")
    func movedBetweenFiles() async throws {
        let (keys, path, ranges) = try await Self.written()
        let directory = String(path.dropLast(AccessLog.fileName.count + 1))
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let older = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        try FileManager.default.moveItem(atPath: path, toPath: path + AccessLog.rotatedSuffix)
        await keys.log(directory).record(AccessLogTests.entry(9))
        try Self.rewrite(path) { $0 += older[ranges[0].lowerBound...] }
        let reading = await Self.reading(keys, path)
        #expect(!reading.problems.isEmpty, "\(reading)")
    }
}

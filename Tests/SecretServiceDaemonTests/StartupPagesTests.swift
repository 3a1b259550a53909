// SPDX-License-Identifier: Apache-2.0
// What cofferd hands back after start-up: the loader's read-only segments, and nothing else.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import SecretServiceDaemon
import Testing

@Suite("Start-up pages")
struct StartupPagesTests {
    /// Written once at run time: a page of writable data, which must survive as written.
    nonisolated(unsafe) static var written: [UInt64] = []

    @Test("releasing unmaps this process's loaded code, which runs on from the page cache; written data is kept")
    func releaseInThisProcess() throws {
        Self.written = (0..<512).map { UInt64($0) &* 0x9E37_79B9_7F4A_7C15 }
        let executable = try #require(Self.mappings().first { $0.path == Self.executablePath() && $0.perms == "r-xp" })
        let advised = StartupPages.release()
        #expect(advised >= executable.size)
        let after = try #require(Self.mappings().first { $0.start == executable.start })
        // Pages the process touches since (reading smaps, the other suites) come back; most of the code does not.
        #expect(after.rss < executable.rss / 2, "resident code went from \(executable.rss) kB to \(after.rss) kB")
        #expect(Self.written.enumerated().allSatisfy { $0.element == UInt64($0.offset) &* 0x9E37_79B9_7F4A_7C15 })
        #expect(String(42, radix: 16) == "2a")
    }

    @Test("a file the process maps at run time keeps its pages: only the loader's segments are released")
    func runTimeMappingsAreLeftAlone() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("startup-pages-\(getpid())").path
        let length = 256 * 1024
        try Data(repeating: 0xA5, count: length).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        let mapped = try #require(mmap(nil, length, PROT_READ, MAP_PRIVATE, fd, 0).flatMap {
            $0 == MAP_FAILED ? nil : $0
        })
        defer { munmap(mapped, length) }
        let bytes = mapped.assumingMemoryBound(to: UInt8.self)
        var sum = 0
        for offset in stride(from: 0, to: length, by: 4096) { sum += Int(bytes[offset]) }
        #expect(sum == 0xA5 * (length / 4096))
        let before = try #require(Self.mappings().first { $0.path == path })
        StartupPages.release()
        let after = try #require(Self.mappings().first { $0.path == path })
        #expect(before.rss == length / 1024)
        #expect(after.rss == before.rss, "a run-time mapping lost its pages")
    }

    struct Mapping {
        let start: UInt
        let size: Int
        let perms: String
        let path: String
        var rss = 0
    }

    static func executablePath() -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    }

    /// This process's mappings with their resident kilobytes, from its smaps.
    static func mappings() -> [Mapping] {
        // Read to its end: a /proc file has no size, and a whole-file read stops after its first block.
        guard let file = FileHandle(forReadingAtPath: "/proc/self/smaps") else { return [] }
        defer { try? file.close() }
        let text = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        var result: [Mapping] = []
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if !first.hasSuffix(":"), fields.count >= 5 {
                let bounds = first.split(separator: "-").compactMap { UInt($0, radix: 16) }
                guard bounds.count == 2 else { continue }
                result.append(Mapping(start: bounds[0], size: Int(bounds[1] - bounds[0]), perms: String(fields[1]),
                                      path: fields.count > 5 ? fields[5...].joined(separator: " ") : ""))
            } else if first == "Rss:", !result.isEmpty {
                result[result.count - 1].rss = Int(fields[1]) ?? 0
            }
        }
        return result
    }
}

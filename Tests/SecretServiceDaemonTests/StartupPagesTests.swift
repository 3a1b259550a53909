// SPDX-License-Identifier: Apache-2.0
// Which mappings cofferd hands back after start-up, and that handing them back keeps the process whole.

#if canImport(Glibc)
import Glibc
#endif
@testable import SecretServiceDaemon
import Testing

@Suite("Start-up pages")
struct StartupPagesTests {
    /// One mapping of each kind, as the kernel writes them (trimmed to the fields that matter).
    static let smaps = """
        55d0a0000000-55d0a02b8000 r--p 00000000 fe:01 1234                       /usr/bin/cofferd
        Rss:                 824 kB
        Anonymous:             0 kB
        VmFlags: rd mr mw me dw sd
        55d0a02b8000-55d0a0f15000 r-xp 002b8000 fe:01 1234                       /usr/bin/cofferd
        Rss:                4988 kB
        Anonymous:             0 kB
        VmFlags: rd ex mr mw me dw sd
        55d0a0f15000-55d0a0f7c000 r--p 00f15000 fe:01 1234                       /usr/bin/cofferd
        Rss:                 412 kB
        Anonymous:           412 kB
        VmFlags: rd mr mw me dw ac sd
        55d0a0f7c000-55d0a1190000 rw-p 00f7c000 fe:01 1234                       /usr/bin/cofferd
        Rss:                1216 kB
        Anonymous:           170 kB
        VmFlags: rd wr mr mw me dw ac sd
        55d0a1190000-55d0a12a0000 rw-p 00000000 00:00 0                          [heap]
        Rss:                 204 kB
        Anonymous:           204 kB
        VmFlags: rd wr mr mw me ac sd
        7f1c00000000-7f1c00100000 rw-p 00000000 00:00 0
        Rss:                 264 kB
        Anonymous:           264 kB
        VmFlags: rd wr mr mw me lo ac sd
        7f1c10000000-7f1c10020000 r--s 00000000 00:19 77                         /tmp/shared-file
        Rss:                  16 kB
        Anonymous:             0 kB
        VmFlags: rd sh mr mw me ms sd
        7f1c20000000-7f1c20190000 r-xp 00028000 fe:01 99                         /usr/lib/x86_64-linux-gnu/libc.so.6
        Rss:                1024 kB
        Anonymous:             0 kB
        VmFlags: rd ex mr mw me sd
        7f1c30000000-7f1c30010000 r-xp 00000000 fe:01 98                         /usr/lib/locked.so
        Rss:                  64 kB
        Anonymous:             0 kB
        VmFlags: rd ex mr mw me lo sd
        7ffd5c5f0000-7ffd5c5f2000 r-xp 00000000 00:00 0                          [vdso]
        Rss:                   8 kB
        Anonymous:             0 kB
        VmFlags: rd ex mr mw me de sd
        """

    @Test("only clean, private, read-only file mappings qualify: never writable, copied, shared, locked or anonymous")
    func qualifyingMappings() {
        let mappings = StartupPages.releasable(smaps: Array(Self.smaps.utf8))
        #expect(mappings == [
            .init(start: 0x55d0_a000_0000, end: 0x55d0_a02b_8000),  // the binary's read-only data
            .init(start: 0x55d0_a02b_8000, end: 0x55d0_a0f1_5000),  // its code
            .init(start: 0x7f1c_2000_0000, end: 0x7f1c_2019_0000),  // a library's code
        ])
    }

    @Test("a mapping whose fields are missing or unreadable is left alone")
    func incompleteEntries() {
        let text = """
            55d0a0000000-55d0a02b8000 r-xp 00000000 fe:01 1234                       /usr/bin/cofferd
            Rss:                 824 kB
            zzzz-55d0a0f15000 r-xp 002b8000 fe:01 1234                       /usr/bin/cofferd
            Anonymous:             0 kB
            55d0a0f15000-55d0a0f7c000 r-xp 00f15000 fe:01 1234
            Anonymous:             0 kB
            """
        #expect(StartupPages.releasable(smaps: Array(text.utf8)).isEmpty)
    }

    @Test("releasing this process's start-up pages unmaps its code, which runs on from the page cache")
    func releaseInThisProcess() throws {
        let before = try #require(Self.residentCode())
        let advised = try #require(StartupPages.release())
        #expect(advised > 0)
        let after = try #require(Self.residentCode())
        // The pages the test touches since (reading smaps, the test runner) come back; most of the code does not.
        #expect(after < before / 2, "resident code went from \(before) kB to \(after) kB")
        // Code and constants unmapped above run and read as before.
        #expect(String(42, radix: 16) == "2a")
        #expect(StartupPages.releasable(smaps: Array(Self.smaps.utf8)).count == 3)
    }

    /// The resident kilobytes of this process's qualifying mappings, from its smaps.
    static func residentCode() -> Int? {
        let fd = open("/proc/self/smaps", O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while case let count = read(fd, &chunk, chunk.count), count > 0 { bytes += chunk[..<count] }
        let qualifying = StartupPages.releasable(smaps: bytes)
        var total = 0
        var current: UInt?
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
                current = UInt(range.split(separator: "-")[0], radix: 16)
            } else if fields.first == "Rss:", let start = current, qualifying.contains(where: { $0.start == start }) {
                total += Int(fields[1]) ?? 0
            }
        }
        return total
    }
}

// SPDX-License-Identifier: Apache-2.0
// cofferd's threads share glibc's main heap instead of keeping an arena each, which only cost resident memory.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("Malloc arenas")
struct MallocArenaTests {
    /// glibc's size and alignment of an extra arena's heap on 64-bit Linux (HEAP_MAX_SIZE).
    static let arenaHeapBytes: UInt = 64 << 20

    /// The extra malloc arenas of process `pid`: glibc reserves each arena's heap as one aligned block of
    /// `arenaHeapBytes`, its used start readable and writable and the rest `---p`, with no file behind either.
    static func arenaCount(of pid: Int32) throws -> Int {
        guard let file = FileHandle(forReadingAtPath: "/proc/\(pid)/maps") else { throw CocoaError(.fileNoSuchFile) }
        defer { file.closeFile() }
        let lines = String(decoding: file.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        let anonymous: [(start: UInt, end: UInt, permissions: Substring)] = lines.compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 5 else { return nil }  // A sixth field names the file or [stack], [heap]...
            let bounds = fields[0].split(separator: "-").compactMap { UInt($0, radix: 16) }
            return bounds.count == 2 ? (bounds[0], bounds[1], fields[1]) : nil
        }
        return anonymous.indices.count { index in
            let heap = anonymous[index]
            guard heap.permissions.hasPrefix("rw"), heap.start % arenaHeapBytes == 0 else { return false }
            if heap.end - heap.start == arenaHeapBytes { return true }
            guard index + 1 < anonymous.count else { return false }
            let rest = anonymous[index + 1]
            return rest.start == heap.end && rest.permissions == "---p" && rest.end - heap.start == arenaHeapBytes
        }
    }

    @Test("a daemon that served clients at once keeps no malloc arena but the main one")
    func oneArena() async throws {
        try await TestBus.withPrivateBus { bus in
            let daemon = try await DaemonHarness.start(on: bus)
            let pid = try #require(daemon.processID)
            let env = ClientEnvironment(bus: bus)
            // Clients at once keep the daemon's threads busy side by side: each would get an arena of its own.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for client in 0..<4 {
                    group.addTask {
                        for item in 0..<3 {
                            let attributes = ["arena", "test", "client", "\(client)", "item", "\(item)"]
                            try await env.secretTool(["store", "--label", "item \(item)"] + attributes,
                                                     input: Data("secret \(client) \(item)".utf8)).expectSuccess("store")
                            try await env.secretTool(["lookup"] + attributes).expectSuccess("lookup")
                        }
                    }
                }
                try await group.waitForAll()
            }
            let arenas = try Self.arenaCount(of: pid)
            // cofferd limits glibc to its main arena on the main thread, before any other thread has allocated.
            #expect(arenas == 0, "cofferd keeps \(arenas) malloc arenas besides the main one")
            let exit = await daemon.stop()
            #expect(exit == .exited(0), "cofferd \(exit); log:\n\(daemon.log())")
        }
    }
}

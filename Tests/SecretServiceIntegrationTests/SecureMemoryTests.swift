// SPDX-License-Identifier: Apache-2.0
// cofferd refuses to run when its secure memory cannot be locked into RAM.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("Secure memory")
struct SecureMemoryTests {
    @Test("without a memory-lock allowance cofferd exits with one line saying what to raise")
    func refusesUnlockedMemory() async throws {
        try await TestBus.withPrivateBus { bus in
            let cofferd = try DaemonHarness.executableURL().path
            // Root may lock memory past any limit; drop that capability so the 64 KiB limit applies.
            let output = try await ClientEnvironment(bus: bus).run("/usr/bin/prlimit", [
                "--memlock=65536:65536", "/usr/sbin/capsh", "--drop=cap_ipc_lock", "--", "-c",
                "exec \"$0\" --address \"$1\" --memory-only", cofferd, bus.address,
            ])
            #expect(output.status == 1, "\(output.stderr)")
            let lines = output.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("cannot lock 1 MiB of secure memory"), "\(output.stderr)")
        }
    }
}

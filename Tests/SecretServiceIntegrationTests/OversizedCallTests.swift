// SPDX-License-Identifier: Apache-2.0
// A call far past the argument limit: refused before it is decoded, cofferd's memory and its other clients unharmed.

import DBusTransport
import DBusWire
import Foundation
import Glibc
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

@Suite("Oversized calls", .timeLimit(.minutes(2)))
struct OversizedCallTests {
    /// How much cofferd's peak resident size may grow while it refuses the call. libdbus itself must read the
    /// message in, so this is that buffer with room to spare; decoding the body would cost about ten times its size.
    static let peakGrowthLimitKiB = 48 * 1024

    /// The daemon's environment. Under AddressSanitizer its freed blocks wait in a quarantine before their memory is
    /// used again, so each step of libdbus's growing read buffer would stay resident beside the next and the peak
    /// would measure the sanitizer; without the quarantine it measures what cofferd holds, as in an ordinary build.
    static var environment: [String: String] {
        guard let options = ProcessInfo.processInfo.environment["ASAN_OPTIONS"] else { return [:] }
        return ["ASAN_OPTIONS": options + ":quarantine_size_mb=0:thread_local_quarantine_size_kb=0"]
    }

    @Test("a 12 MiB call is refused with LimitsExceeded without being decoded; cofferd keeps serving everyone")
    func twelveMebibyteCall() async throws {
        try await TestBus.withPrivateBus { bus in
            let daemon = try await DaemonHarness.start(
                on: bus, options: DaemonHarness.SubprocessOptions(environment: Self.environment))
            let pid = try #require(daemon.processID)
            let before = try Self.peakResidentKiB(of: pid)

            // An array of 32-bit integers: cheap on the wire, and each element a value of its own once decoded.
            let offender = try await bus.connect()
            let call = Message.methodCall(
                destination: SecretServiceNames.busName, path: SecretServiceNames.servicePath,
                interface: "org.freedesktop.Secret.Service", member: "SearchItems",
                body: [.array(.int32, Array(repeating: .int32(0x5a5a_5a5a), count: 3 << 20))])
            do {
                _ = try await offender.call(call, timeout: .seconds(60))
                Issue.record("the oversized call was accepted")
            } catch let error as DBusError {
                #expect(error.name == .limitsExceeded, "\(error)")
            }
            let after = try Self.peakResidentKiB(of: pid)
            print("oversized call: cofferd peak RSS \(before) KiB before, \(after) KiB after")
            #expect(after - before < Self.peakGrowthLimitKiB, "peak RSS \(before) → \(after) KiB")

            // The offender's link and everyone else's service are intact.
            #expect(await offender.isConnected)
            #expect(kill(pid, 0) == 0)
            let alias = try await withClient(on: bus) { client in try await client.readAlias("default") }
            #expect(alias != nil)
            await offender.close()
            #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")
        }
    }

    static func peakResidentKiB(of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        return try #require(Int(line.split(whereSeparator: \.isWhitespace)[1]))
    }
}

// SPDX-License-Identifier: Apache-2.0
// One data directory, one daemon: a second cofferd on the same files must not start, and a crash frees them.

import Foundation
import Glibc
import SecretServiceClient
import SecretServiceTestSupport
import Testing

@Suite("cofferd: one daemon per data directory", .timeLimit(.minutes(2)))
struct DataDirectoryLockTests {
    @Test("a second cofferd on the same data directory (another bus) exits 5 naming the directory and the holder")
    func secondDaemonIsRefused() async throws {
        try await withCofferd { env, first in
            let directory = first.dataDirectory.path
            try await TestBus.withPrivateBus { other in
                let cofferd = try DaemonHarness.executableURL().path
                let refused = try await env.run(cofferd, ["--address", other.address, "--data-dir", directory])
                #expect(refused.status == 5, "\(refused.stderr)")
                let lines = refused.stderr.split(separator: "\n")
                #expect(lines.count == 1, "\(refused.stderr)")
                #expect(lines.first?.contains(directory) == true, "\(refused.stderr)")
                #expect(lines.first?.contains("pid \(first.processID ?? -1)") == true, "\(refused.stderr)")
            }
        }
    }

    @Test("kill -9 of the holder frees the directory: the next cofferd starts on it and serves what was stored")
    func crashFreesTheLock() async throws {
        try await TestBus.withPrivateBus { bus in
            let first = try await DaemonHarness.start(on: bus, options: DaemonSequence.options("holder"))
            let item = try await withClient(on: bus) { client in
                try await client.createItem(in: DaemonSequence.loginPath, label: "kept", attributes: ["lock": "dir"],
                                            secret: secret("survives the holder"), replace: false)
            }
            #expect(await first.kill() == .signalled(SIGKILL))
            try await TestBus.withPrivateBus { other in
                var options = DaemonSequence.options("successor")
                options.arguments += ["--data-dir", first.dataDirectory.path]
                let second = try await DaemonHarness.start(on: other, options: options)
                let kept = try await withClient(on: other) { client in try await client.secret(of: item).text }
                #expect(kept == "survives the holder")
                #expect(await second.stop() == .exited(0), "\(second.log())")
            }
        }
    }
}

@Suite("coffer doctor: a data directory held by another cofferd", .timeLimit(.minutes(2)))
struct DoctorDirectoryLockTests {
    @Test("doctor on a bus without that cofferd names the holder's pid as an error")
    func doctorSeesTheHolder() async throws {
        try await withCofferd { _, holder in
            try await TestBus.withPrivateBus { other in
                // Another bus (no provider there), the same data directory.
                let doctor = try await CofferCLI(bus: other).run(["doctor"], environment: [
                    "XDG_DATA_HOME": holder.dataDirectory.deletingLastPathComponent().path,
                ])
                #expect(doctor.status == 1, "\(doctor.text)")
                #expect(doctor.text.contains("is held by another cofferd (pid \(holder.processID ?? -1))"),
                        "\(doctor.text)")
            }
        }
    }
}

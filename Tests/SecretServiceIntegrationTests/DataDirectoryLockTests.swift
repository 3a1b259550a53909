// SPDX-License-Identifier: Apache-2.0
// One data directory, one daemon: a second cofferd on the same files must not start, and a crash frees them.

import Foundation
import DBusTransport
import Glibc
import SecretServiceClient
import SecretServiceTestSupport
import SecretStore
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

    @Test("a cofferd stopping on the same bus (name given up, files not yet closed) is waited for, then served from")
    func stoppingHolderIsWaitedFor() async throws {
        try await TestBus.withPrivateBus { bus in
            // This process plays a cofferd that gave up the name and is closing its files (D-Bus activation starts
            // the next one for the first call after that): it holds the directory and is on the bus.
            let directory = bus.directory.appendingPathComponent("shared-data").path
            let stopping = SecretStore(directory: directory)
            try await stopping.lockDirectory()
            let onBus = try await bus.connect()
            // Each attempt to take the directory opens its lock file: a second open is the successor waiting
            // rather than exiting, and the "stopping" holder lets go then.
            let attempts = try FileEvents(directory + "/lock", mask: UInt32(IN_OPEN))
            let release = Task {
                var opened = 0
                for await _ in attempts.wakeUps {
                    opened += 1
                    if opened >= 2 { break }
                }
                await stopping.close()
            }
            defer { release.cancel() }
            var options = DaemonSequence.options("successor")
            options.arguments += ["--data-dir", directory]
            let successor = try await DaemonHarness.start(on: bus, options: options)
            await release.value
            let served = try await withClient(on: bus) { client in try await client.collections() }
            #expect(served.contains(DaemonSequence.loginPath))
            #expect(successor.log().contains("waiting for the cofferd that is stopping"), "\(successor.log())")
            #expect(await successor.stop() == .exited(0), "\(successor.log())")
            await onBus.close()
        }
    }

    @Test("a cofferd serving the name on the same bus keeps the directory: a second one exits 5 at once")
    func servingHolderIsNotWaitedFor() async throws {
        try await withCofferd { env, first in
            let directory = first.dataDirectory.path
            let cofferd = try DaemonHarness.executableURL().path
            let refused = try await env.run(cofferd, ["--address", first.bus.address, "--data-dir", directory])
            #expect(refused.status == 5, "\(refused.stderr)")
            #expect(refused.stderr.contains("pid \(first.processID ?? -1)"), "\(refused.stderr)")
            // Refused on sight, not after the wait for a holder that is stopping.
            #expect(!refused.stderr.contains("did not exit within"), "\(refused.stderr)")
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

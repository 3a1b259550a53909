// SPDX-License-Identifier: Apache-2.0
// The daemon harness itself: clean shutdown, captured logs, scratch directories, and the in-process mode.

import DBusTransport
import DBusWire
import Foundation
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

@Suite("Daemon harness", .timeLimit(.minutes(2)))
struct HarnessTests {
    @Test("a bus daemon started for a test holds no descriptor of the test process: a password pipe stays closable")
    func busDaemonInheritsNoDescriptor() async throws {
        // Foundation's Pipe sets no close-on-exec, as when a test holds cofferd's --unlock password in one.
        let pipe = Pipe()
        defer {
            try? pipe.fileHandleForWriting.close()
            try? pipe.fileHandleForReading.close()
        }
        let writeEnd = try FileManager.default.destinationOfSymbolicLink(
            atPath: "/proc/self/fd/\(pipe.fileHandleForWriting.fileDescriptor)")
        try await TestBus.withPrivateBus { bus in
            let connection = try await bus.connect()
            let pid = try #require(try await connection.processID(of: BusName("org.freedesktop.DBus")))
            await connection.close()
            let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
            let targets = descriptors.compactMap {
                try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")
            }
            #expect(!targets.isEmpty, "the bus daemon's descriptors could not be read")
            #expect(!targets.contains(writeEnd), "the bus daemon holds the test's pipe: \(targets)")
        }
    }

    @Test("the subprocess owns the name, logs to the scratch dir, and exits 0 on SIGTERM")
    func subprocessLifecycle() async throws {
        try await TestBus.withPrivateBus { bus in
            let harness = try await DaemonHarness.start(.subprocess, on: bus)
            #expect(harness.processID != nil)
            #expect(harness.uniqueName.isUnique)
            #expect(harness.logFile.path.hasPrefix(bus.directory.path))
            let watcher = try await bus.connect()
            #expect(try await watcher.nameOwner(of: SecretServiceNames.busName) == harness.uniqueName)
            await watcher.close()

            let exit = await harness.stop()
            #expect(exit == .exited(0), "log:\n\(harness.log())")
            #expect(harness.log().contains("serving org.freedesktop.secrets"))
            #expect(await harness.stop() == exit)  // idempotent
        }
    }

    @Test("headless gnome-keyring owns the name on the private bus, stores, and keeps its files in the scratch home")
    func gnomeKeyring() async throws {
        try await TestBus.withPrivateBus { bus in
            let harness = try await DaemonHarness.startGnomeKeyring(on: bus)
            let clients = ClientEnvironment(bus: bus)
            let store = try await clients.secretTool(["store", "--label=probe", "service", "harness"],
                                                     input: Data("gk-secret".utf8))
            #expect(store.status == 0, "\(store.stderr)\n\(harness.log())")
            let lookup = try await clients.secretTool(["lookup", "service", "harness"])
            #expect(lookup.text == "gk-secret")
            #expect(harness.gnomeKeyringDirectory.path.hasPrefix(bus.directory.path))
            #expect(FileManager.default.fileExists(
                atPath: harness.gnomeKeyringDirectory.appendingPathComponent("login.keyring").path))
            _ = await harness.stop()
            let watcher = try await bus.connect()
            #expect(try await watcher.nameOwner(of: SecretServiceNames.busName) == nil)
            await watcher.close()
        }
    }

    @Test("killing the subprocess is reported as SIGKILL")
    func subprocessKill() async throws {
        try await TestBus.withPrivateBus { bus in
            let harness = try await DaemonHarness.start(.subprocess, on: bus)
            #expect(await harness.kill() == .signalled(9))
        }
    }

    @Test("in-process mode serves our client")
    func inProcess() async throws {
        try await DaemonHarness.withDaemon(.inProcess()) { _, harness, client in
            #expect(harness.processID == nil)
            let item = try await client.createItem(
                in: try await client.defaultCollection(), label: "in process", attributes: ["mode": "in-process"],
                secret: secret("v"), replace: false)
            #expect(try await client.secret(of: item).text == "v")
            #expect(harness.log().contains("serving org.freedesktop.secrets"))
        }
    }
}

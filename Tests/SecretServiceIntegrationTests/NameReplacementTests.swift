// SPDX-License-Identifier: Apache-2.0
// Who may take org.freedesktop.secrets from cofferd: nobody, unless cofferd is told to allow replacement.

import DBusTransport
import DBusWire
import Foundation
import Glibc
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

@Suite("Name replacement", .timeLimit(.minutes(2)))
struct NameReplacementTests {
    static let name = SecretServiceNames.busName

    @Test("by default a connection asking for the name with REPLACE_EXISTING does not get it; cofferd keeps serving")
    func refusedByDefault() async throws {
        try await TestBus.withPrivateBus { bus in
            let daemon = try await DaemonHarness.start(.subprocess, on: bus)
            let thief = try await bus.connect()
            let queued = try await bus.connect()
            #expect(try await thief.requestName(Self.name, flags: [.replaceExisting, .doNotQueue]) == .exists)
            #expect(try await queued.requestName(Self.name, flags: [.replaceExisting]) == .inQueue)
            #expect(try await thief.nameOwner(of: Self.name) == daemon.uniqueName)
            let alias = try await withClient(on: bus) { client in try await client.readAlias("default") }
            #expect(alias != nil)
            #expect(kill(try #require(daemon.processID), 0) == 0)
            await thief.close()
            await queued.close()
            #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")
            #expect(!daemon.log().contains("lost org.freedesktop.secrets"), "log:\n\(daemon.log())")
        }
    }

    /// How replacement is allowed.
    enum Allowance: String, CaseIterable, Sendable {
        case option
        case configurationFile

        func arguments(in directory: URL) throws -> [String] {
            switch self {
            case .option:
                return ["--allow-replacement"]
            case .configurationFile:
                let file = directory.appendingPathComponent("allow-replacement.conf")
                try "[daemon]\nallow-replacement = yes\n".write(to: file, atomically: true, encoding: .utf8)
                return ["--config", file.path]
            }
        }
    }

    @Test("allowed by option or configuration file, REPLACE_EXISTING takes the name; cofferd logs an error, exits 0",
          arguments: Allowance.allCases)
    func allowed(_ allowance: Allowance) async throws {
        try await TestBus.withPrivateBus { bus in
            let daemon = try await DaemonHarness.start(.subprocess, on: bus,
                                                       arguments: try allowance.arguments(in: bus.directory))
            let successor = try await bus.connect()
            #expect(try await successor.requestName(Self.name, flags: [.replaceExisting, .doNotQueue]) == .primaryOwner)
            #expect(await daemon.waitForExit() == .exited(0), "log:\n\(daemon.log())")
            let lost = daemon.log().split(separator: "\n").filter { $0.contains("lost org.freedesktop.secrets") }
            #expect(lost.count == 1 && lost[0].contains(" error "), "log:\n\(daemon.log())")
            #expect(try await successor.nameOwner(of: Self.name) == successor.uniqueName)
            await successor.close()
        }
    }

    @Test("--replace against gnome-keyring (no replacement allowed) exits 3 naming `coffer takeover`, creates nothing",
          .enabled(if: DaemonHarness.gnomeKeyringInstalled))
    func refusedByGnomeKeyringTouchesNothing() async throws {
        try await TestBus.withPrivateBus { bus in
            let keyring = try await DaemonHarness.startGnomeKeyring(on: bus)
            let env = ClientEnvironment(bus: bus)
            let dataDirectory = bus.directory.appendingPathComponent("never-created/coffer").path
            let refused = try await env.run(try DaemonHarness.executableURL().path,
                                            ["--address", bus.address, "--replace", "--unlock", "--data-dir", dataDirectory],
                                            input: Data("a login password".utf8))
            #expect(refused.status == 3, "\(refused.stderr)")
            let lines = refused.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("coffer takeover") && lines[0].contains("nothing was changed"),
                    "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: bus.directory.appendingPathComponent("never-created").path))
            let probe = try await bus.connect()
            #expect(try await probe.nameOwner(of: Self.name) == keyring.uniqueName)
            await probe.close()
            await keyring.stop()
        }
    }
}

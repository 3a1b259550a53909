// SPDX-License-Identifier: Apache-2.0
// A Flatpak application is one identity by its app id: asked about another program's item under that name, and
// an "always" for it outlives a restart.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("Access control for a sandboxed (Flatpak) application")
struct AccessFlatpakTests {
    static let appID = "org.example.Reader"

    @Test("a Flatpak application sees another program's item locked, is asked by its app id, and \"always\" outlives a restart")
    func flatpakConsent() async throws {
        try await TestBus.withPrivateBus { bus in
            var options = DaemonHarness.SubprocessOptions(arguments: ["--access-control", "ask"])
            // "Always allow", then the second question's first choice: only this secret.
            options.pinentryConfirms = ["NOTOK", "OK"]
            let daemon = try await DaemonHarness.start(on: bus, options: options)
            let env = ClientEnvironment(bus: bus)
            let owner = try AccessControlTests.application("owner", env)
            #expect(try await owner("store") == "stored")

            let directory = bus.directory.appendingPathComponent("sandboxed", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let script = directory.appendingPathComponent("app.py")
            try Data(AccessControlTests.program.utf8).write(to: script)
            let sandboxed: @Sendable (String) async throws -> String = { role in
                let command = try FlatpakSandbox.command(appID: Self.appID, in: bus,
                                                         running: ["/usr/bin/python3", script.path, role])
                let output = try await env.run(command[0], Array(command.dropFirst()))
                output.expectSuccess("the sandboxed application, \(role)")
                return output.text.trimmingCharacters(in: .whitespacesAndNewlines)
            }

            #expect(try await sandboxed("read") == "locked")
            #expect(AccessControlTests.confirmations(daemon) == 0)
            #expect(try await sandboxed("unlock") == "secret the secret of A")
            #expect(AccessControlTests.confirmations(daemon) == 2)
            // The question names the application by its app id first (its command line follows).
            let description = daemon.pinentryCommands.first { $0.hasPrefix("SETDESC The application ") }
            #expect(description?.hasPrefix("SETDESC The application \(Self.appID) (process ") == true,
                    "\(description ?? "no description")")
            #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")

            var again = DaemonHarness.SubprocessOptions(arguments: ["--access-control", "ask"], name: "second")
            again.pinentryConfirms = ["CANCEL"]
            let second = try await DaemonHarness.start(on: bus, options: again)
            #expect(try await sandboxed("read") == "secret the secret of A")
            #expect(AccessControlTests.confirmations(second) == 0)
            // The same script outside the sandbox is another application: it is not allowed by the app id's grant.
            let unsandboxed = try await env.run("/usr/bin/python3", [script.path, "read"])
            #expect(unsandboxed.text.trimmingCharacters(in: .whitespacesAndNewlines) == "locked")
            #expect(await second.stop() == .exited(0), "log:\n\(second.log())")
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// coffer is an application of its own: reading another program's item, it is asked like any other.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("coffer under access control")
struct AccessControlVerbTests {
    @Test("find-generic-password for secret-tool's item asks; allowed it prints the secret, denied it exits 128")
    func findAsks() async throws {
        try await TestBus.withPrivateBus { bus in
            var options = DaemonHarness.SubprocessOptions()
            options.accessControl = "ask"
            options.pinentryConfirms = ["OK", "CANCEL"]
            let daemon = try await DaemonHarness.start(on: bus, options: options)
            let client = ClientEnvironment(bus: bus)
            let coffer = CofferCLI(bus: bus)
            let stored = try await client.secretTool(["store", "--label=tool", "service", "acl-svc", "account", "bob"],
                                                     input: Data("Qv81-tool-pw".utf8))
            #expect(stored.status == 0, "\(stored.stderr)")

            let allowed = try await coffer.run(["find-generic-password", "-s", "acl-svc", "-w", "--include-foreign"])
            #expect(allowed.status == 0, "\(allowed.stderr)")
            #expect(allowed.text == "Qv81-tool-pw\n")
            #expect(daemon.pinentryCommands.count { $0 == "CONFIRM" } == 1, "\(daemon.pinentryCommands)")

            let denied = try await coffer.run(["find-generic-password", "-s", "acl-svc", "-w", "--include-foreign"])
            #expect(denied.status == 128, "\(denied.status): \(denied.stderr)")
            #expect(!denied.text.contains("Qv81-tool-pw"))
            #expect(denied.stderr.split(separator: "\n").count == 1, "\(denied.stderr)")
            #expect(daemon.pinentryCommands.count { $0 == "CONFIRM" } == 2, "\(daemon.pinentryCommands)")
            let exit = await daemon.stop()
            #expect(exit == .exited(0), "cofferd \(exit); log:\n\(daemon.log())")
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// A private bus with the real cofferd on it, for tests that drive it with real clients.

import Foundation
import SecretServiceTestSupport
import Testing

/// Runs `body` against a fresh cofferd subprocess on a fresh private bus, then checks the daemon shuts down
/// cleanly on SIGTERM.
func withCofferd(_ body: (ClientEnvironment, DaemonHarness) async throws -> Void,
                 sourceLocation: SourceLocation = #_sourceLocation) async throws {
    try await TestBus.withPrivateBus { bus in
        let daemon = try await DaemonHarness.start(.subprocess, on: bus)
        do {
            try await body(ClientEnvironment(bus: bus), daemon)
        } catch {
            await daemon.kill()
            throw error
        }
        let exit = await daemon.stop()
        #expect(exit == .exited(0), "cofferd \(exit); log:\n\(daemon.log())", sourceLocation: sourceLocation)
    }
}

extension ClientOutput {
    /// Fails the test with the program's stderr unless it exited 0.
    func expectSuccess(_ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(status == 0, "\(what) exited \(status): \(stderr)", sourceLocation: sourceLocation)
    }
}

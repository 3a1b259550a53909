// SPDX-License-Identifier: Apache-2.0
// The Secret Service providers that client-side suites (Keychain, coffer) run against, to prove they depend on the
// spec and not on cofferd.

/// A provider a test can start on a private bus, logged in and unlocked.
public enum TestProvider: String, CaseIterable, Sendable {
    case cofferd
    /// The reference implementation, headless: it has no prompter, so tests that need an accepted unlock dialogue
    /// stay cofferd-only.
    case gnomeKeyring = "gnome-keyring"

    /// Starts the provider on `bus`.
    public func start(on bus: TestBus) async throws -> DaemonHarness {
        switch self {
        case .cofferd: try await DaemonHarness.start(.subprocess, on: bus)
        case .gnomeKeyring: try await DaemonHarness.startGnomeKeyring(on: bus)
        }
    }

    /// Runs `body` with a fresh private bus and the provider on it; stops both afterwards.
    public func with<T>(isolation: isolated (any Actor)? = #isolation,
                        _ body: (TestBus, DaemonHarness) async throws -> T) async throws -> T {
        try await TestBus.withPrivateBus(isolation: isolation) { bus in
            let harness = try await start(on: bus)
            do {
                let result = try await body(bus, harness)
                _ = await harness.stop()
                return result
            } catch {
                _ = await harness.stop()
                throw error
            }
        }
    }
}

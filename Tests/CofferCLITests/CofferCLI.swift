// SPDX-License-Identifier: Apache-2.0
// Runs the built `coffer` executable as a subprocess against a private bus, and reads its output.

import Foundation
import SecretServiceTestSupport
import Testing

/// The built `coffer`, run with a ``ClientEnvironment`` (private bus, scratch HOME).
struct CofferCLI: Sendable {
    let environment: ClientEnvironment

    init(bus: TestBus) { environment = ClientEnvironment(bus: bus) }

    /// Runs `coffer arguments…` with `input` on stdin.
    func run(_ arguments: [String], input: String = "", environment extra: [String: String] = [:]) async throws
        -> ClientOutput {
        try await environment.run(try Self.executable().path, arguments, input: Data(input.utf8),
                                  extraEnvironment: extra)
    }

    /// Runs and decodes stdout as JSON.
    func json(_ arguments: [String], input: String = "") async throws -> (ClientOutput, Any) {
        let output = try await run(arguments + ["--json"], input: input)
        let value = try JSONSerialization.jsonObject(with: output.stdout)
        return (output, value)
    }

    /// `$COFFER_PATH`, else `coffer` next to the test binary or cofferd, else `.build/debug/coffer` above this file.
    static func executable(filePath: String = #filePath) throws -> URL {
        var candidates: [URL] = []
        if let override = ProcessInfo.processInfo.environment["COFFER_PATH"], !override.isEmpty {
            candidates.append(URL(fileURLWithPath: override))
        }
        if let daemon = try? DaemonHarness.executableURL() {
            candidates.append(daemon.deletingLastPathComponent().appendingPathComponent("coffer"))
        }
        var directory = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        while directory.path != "/" {
            candidates.append(directory.appendingPathComponent(".build/debug/coffer"))
            directory.deleteLastPathComponent()
        }
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) {
            return found
        }
        throw DaemonHarness.StartError("coffer is not built (run `swift build --product coffer`)")
    }
}

/// The providers the security(1) verbs are tested against.
enum Provider: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case cofferd, gnomeKeyring

    var testDescription: String { rawValue }

    /// Runs `body` with a fresh private bus and the provider on it; stops both afterwards.
    func with<T>(isolation: isolated (any Actor)? = #isolation,
                 _ body: (TestBus, DaemonHarness) async throws -> T) async throws -> T {
        try await TestBus.withPrivateBus(isolation: isolation) { bus in
            let harness = switch self {
            case .cofferd:
                try await DaemonHarness.start(on: bus, options: .init(arguments: DaemonHarness.cheapKeyDerivation))
            case .gnomeKeyring:
                try await DaemonHarness.startGnomeKeyring(on: bus)
            }
            do {
                let result = try await body(bus, harness)
                await harness.stop()
                return result
            } catch {
                await harness.stop()
                throw error
            }
        }
    }
}

/// The line a secret on argv must produce.
let argvWarning = "visible to other processes"

// SPDX-License-Identifier: Apache-2.0
// Runs the built `coffer` executable as a subprocess against a private bus, the way a user's shell would.

public import Foundation

/// The built `coffer`, run with a ``ClientEnvironment`` (private bus, scratch HOME).
public struct CofferCLI: Sendable {
    public let environment: ClientEnvironment

    public init(bus: TestBus) { environment = ClientEnvironment(bus: bus) }

    /// Runs `coffer arguments…` with `input` on stdin (not a terminal, so passwords come from stdin).
    public func run(_ arguments: [String], input: String = "", environment extra: [String: String] = [:])
        async throws -> ClientOutput {
        try await environment.run(try Self.executable().path, arguments, input: Data(input.utf8),
                                  extraEnvironment: extra)
    }

    /// Runs with `--json` and decodes stdout.
    public func json(_ arguments: [String], input: String = "") async throws -> (ClientOutput, Any) {
        let output = try await run(arguments + ["--json"], input: input)
        let value = try JSONSerialization.jsonObject(with: output.stdout)
        return (output, value)
    }

    /// `$COFFER_PATH`, else `coffer` next to cofferd, else `.build/debug/coffer` above this file.
    public static func executable(filePath: String = #filePath) throws -> URL {
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

// SPDX-License-Identifier: Apache-2.0
// Runs real client programs (secret-tool, python, gdbus, busctl) against a private bus and collects their output.

public import Foundation

/// What a finished client program left behind.
public struct ClientOutput: Sendable {
    public var status: Int32
    public var stdout: Data
    public var stderr: String
    /// Standard output as text.
    public var text: String { String(decoding: stdout, as: UTF8.self) }
}

/// Starts programs with an environment that points at one private bus and one scratch home, never the user's.
public struct ClientEnvironment: Sendable {
    public let bus: TestBus

    public init(bus: TestBus) { self.bus = bus }

    /// The environment every client runs with: the private bus, a scratch HOME and XDG directories, and no
    /// inherited D-Bus or keyring variables (only the sanitizer options are passed on).
    public var variables: [String: String] {
        let home = bus.directory.appendingPathComponent("client-home").path
        return [
            "DBUS_SESSION_BUS_ADDRESS": bus.address,
            "HOME": home,
            "XDG_DATA_HOME": home + "/.local/share",
            "XDG_CONFIG_HOME": home + "/.config",
            "XDG_RUNTIME_DIR": bus.directory.path,
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
        ].merging(SanitizerOptions.inherited) { $1 }
    }

    /// Runs `executable` to completion.
    /// - Parameters:
    ///   - executable: an absolute path.
    ///   - arguments: its arguments.
    ///   - input: bytes for its standard input (then closed).
    ///   - extraEnvironment: added to ``variables``.
    /// - Returns: exit status and output.
    public func run(_ executable: String, _ arguments: [String], input: Data = Data(),
                    extraEnvironment: [String: String] = [:]) async throws -> ClientOutput {
        let scratch = bus.directory.appendingPathComponent("client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        try FileManager.default.createDirectory(
            atPath: variables["HOME"]!, withIntermediateDirectories: true)
        let outURL = scratch.appendingPathComponent("out")
        let errURL = scratch.appendingPathComponent("err")
        let inURL = scratch.appendingPathComponent("in")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        try input.write(to: inURL)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = variables.merging(extraEnvironment) { $1 }
        process.standardInput = try FileHandle(forReadingFrom: inURL)
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        let status = try await process.runToEnd()
        let stderr = try Data(contentsOf: errURL)
        if process.executableURL?.lastPathComponent == "coffer" {
            // coffer's messages are scanned for leaks with the daemon's logs (its standard output is the secrets
            // the user asked for, so it is not).
            try? stderr.write(to: bus.directory.appendingPathComponent("coffer-\(UUID().uuidString).log"))
        }
        return ClientOutput(status: status, stdout: try Data(contentsOf: outURL),
                            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Runs a Python script with Debian's interpreter, where python3-secretstorage and python3-keyring live.
    public func python(_ script: String, extraEnvironment: [String: String] = [:]) async throws -> ClientOutput {
        try await run("/usr/bin/python3", ["-c", script], extraEnvironment: extraEnvironment)
    }

    /// Runs `secret-tool`.
    public func secretTool(_ arguments: [String], input: Data = Data()) async throws -> ClientOutput {
        try await run("/usr/bin/secret-tool", arguments, input: input)
    }
}

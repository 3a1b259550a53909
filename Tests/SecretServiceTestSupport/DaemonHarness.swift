// SPDX-License-Identifier: Apache-2.0
// Runs cofferd on a private test bus (as the built executable or in process) and tears it down again.

public import DBusWire
public import Foundation
public import SecretServiceClient
public import SecretServiceDaemon
import DBusTransport
import Logging
import SecretServiceProtocol

/// A running cofferd for an integration test, on a ``TestBus``.
///
/// Start it with ``start(_:on:)`` or, with the bus and a connected client as well, ``withDaemon(_:algorithm:allowPlainFallback:isolation:_:)``.
/// Readiness is the bus's own `NameOwnerChanged` for `org.freedesktop.secrets` (subscribed before the launch),
/// never polling or sleeping.
public final class DaemonHarness: Sendable {
    /// How the daemon runs.
    public enum Mode: Sendable {
        /// The built `cofferd` executable, with HOME and the XDG directories inside the bus's scratch directory and
        /// standard error captured in ``DaemonHarness/logFile``.
        case subprocess
        /// `SecretServiceDaemon` in a `ServiceGroup` inside the test process, answering prompts with `prompter`;
        /// its log goes to ``DaemonHarness/logFile``.
        case inProcess(prompter: any Prompter = FixedPrompter.autoAccept)
    }

    /// Why the harness could not start the daemon.
    public struct StartError: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// The bus the daemon serves on.
    public let bus: TestBus
    /// The daemon's unique bus name (the owner of `org.freedesktop.secrets`).
    public let uniqueName: BusName
    /// Where the daemon's log goes (standard error of the subprocess; the in-process daemon's log handler).
    public let logFile: URL
    /// The subprocess's ID (`nil` in process).
    public let processID: Int32?
    private let control: Control

    /// What stopping and killing mean for each mode.
    struct Control: Sendable {
        var stop: @Sendable () async -> DaemonExit
        var kill: @Sendable () async -> DaemonExit
        var wait: @Sendable () async -> DaemonExit
    }

    init(bus: TestBus, uniqueName: BusName, logFile: URL, processID: Int32?, control: Control) {
        self.bus = bus
        self.uniqueName = uniqueName
        self.logFile = logFile
        self.processID = processID
        self.control = control
    }

    // MARK: - Starting and stopping

    /// Starts the daemon on `bus` and returns once it owns `org.freedesktop.secrets`.
    /// - Parameters:
    ///   - mode: subprocess or in process.
    ///   - bus: the private bus.
    ///   - timeout: how long to wait for the name before failing.
    /// - Throws: ``StartError`` when the executable is missing, the process exits early, or the name is not taken in
    ///   time.
    ///   - arguments: extra cofferd options (subprocess mode).
    ///   - loginPassword: given on standard input with `--unlock`, as a login session does, so the persistent `login`
    ///     collection exists, is unlocked and is the `default` alias; `nil` starts without it (subprocess mode).
    public static func start(_ mode: Mode = .subprocess, on bus: TestBus, timeout: Duration = readinessTimeout,
                             arguments: [String] = [], loginPassword: String? = testLoginPassword)
        async throws -> DaemonHarness {
        switch mode {
        case .subprocess:
            return try await startSubprocess(on: bus, timeout: timeout, extraArguments: arguments,
                                             loginPassword: loginPassword)
        case .inProcess(let prompter):
            return try await startInProcess(on: bus, prompter: prompter, timeout: timeout)
        }
    }

    /// The login password test daemons are started with.
    public static let testLoginPassword = "test login password"

    /// How long a start may take before the test gives up on it. It bounds a wait for the daemon's own readiness
    /// event, so it only matters when something is wrong, or slow: under ThreadSanitizer or AddressSanitizer, with
    /// the whole suite running at once on two cores, a start that creates `login` (an Argon2id run, instrumented) can
    /// take longer than an uninstrumented one ever does, and failing it then would report the machine, not cofferd.
    public static var readinessTimeout: Duration {
        SanitizerOptions.inherited.isEmpty ? .seconds(20) : .seconds(90)
    }

    /// Starts a second cofferd subprocess with `--replace` and returns once it has taken `org.freedesktop.secrets`
    /// over from the current owner.
    /// - Parameters:
    ///   - bus: the bus whose provider is replaced.
    ///   - timeout: how long to wait for the takeover.
    /// - Throws: ``StartError`` as ``start(_:on:timeout:)``.
    public static func startReplacing(on bus: TestBus, timeout: Duration = .seconds(20)) async throws
        -> DaemonHarness {
        try await startSubprocess(on: bus, timeout: timeout, extraArguments: ["--replace"], logName: "cofferd-replacement")
    }

    /// Asks the daemon to shut down gracefully (SIGTERM, or the service group's graceful shutdown) and waits for it
    /// to end. Idempotent: later calls return the same exit.
    /// - Returns: how it ended.
    @discardableResult
    public func stop() async -> DaemonExit { await control.stop() }

    /// Ends the daemon abruptly (SIGKILL; in process, cancellation) and waits for it to end.
    /// - Returns: how it ended.
    @discardableResult
    public func kill() async -> DaemonExit { await control.kill() }

    /// Waits for the daemon to end by itself (for example after another provider replaced it), sending nothing.
    /// - Returns: how it ended.
    public func waitForExit() async -> DaemonExit { await control.wait() }

    /// The daemon's log so far.
    public func log() -> String {
        (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
    }

    /// The directory the daemon's HOME and XDG directories live in.
    public var homeDirectory: URL { bus.directory.appendingPathComponent("home", isDirectory: true) }

    // MARK: - Everything at once

    /// Runs `body` with a fresh private bus, a daemon on it, and our client connected to it; tears all three down
    /// afterwards, whether `body` throws or not.
    /// - Parameters:
    ///   - mode: how the daemon runs.
    ///   - algorithm: the client's session algorithm.
    ///   - allowPlainFallback: whether the client may fall back to `plain`.
    ///   - body: the test.
    /// - Returns: what `body` returns.
    public static func withDaemon<T>(
        _ mode: Mode = .subprocess, algorithm: SessionAlgorithm = .dh, allowPlainFallback: Bool = false,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (TestBus, DaemonHarness, SecretService) async throws -> T
    ) async throws -> T {
        try await TestBus.withPrivateBus(isolation: isolation) { bus in
            let harness = try await start(mode, on: bus)
            let client: SecretService
            do {
                client = try await SecretService.connect(
                    address: bus.address, algorithm: algorithm, allowPlainFallback: allowPlainFallback)
            } catch {
                await harness.stop()
                throw error
            }
            do {
                let result = try await body(bus, harness, client)
                await client.close()
                await harness.stop()
                return result
            } catch {
                await client.close()
                await harness.stop()
                throw error
            }
        }
    }

    // MARK: - Readiness

    /// The match rule for the bus's `NameOwnerChanged` about `org.freedesktop.secrets`.
    static let nameOwnerRule =
        "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',"
        + "arg0='\(SecretServiceNames.busName.rawValue)'"

    /// Waits on `watcher` (already subscribed with ``nameOwnerRule``) for the name to gain an owner.
    /// - Returns: the new owner, or `nil` when the connection's stream ended or the task was cancelled.
    static func waitForNameOwner(on watcher: Connection) async -> BusName? {
        for await message in watcher.messages
        where message.kind == .signal && message.member == "NameOwnerChanged" && message.body.count == 3 {
            guard message.body[0].string == SecretServiceNames.busName.rawValue,
                  let owner = message.body[2].string, !owner.isEmpty
            else { continue }
            return BusName(owner)
        }
        return nil
    }
}

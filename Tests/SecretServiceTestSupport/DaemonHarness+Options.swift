// SPDX-License-Identifier: Apache-2.0
// Per-instance settings for cofferd subprocesses, so a test can restart the daemon on the same bus and HOME.

public import Foundation

extension DaemonHarness {
    /// How one cofferd subprocess is started. Every instance on a bus shares that bus's HOME and XDG directories, so
    /// starting another after ``DaemonHarness/stop()`` or ``DaemonHarness/kill()`` is a restart over the same data.
    public struct SubprocessOptions: Sendable {
        /// Extra cofferd options (for example `--kdf-iterations 1 --kdf-memory 256`).
        public var arguments: [String]
        /// Given on standard input with `--unlock`; `nil` starts without `--unlock`.
        public var loginPassword: String?
        /// The scripted pinentry's answers, in order (see `Tests/Fixtures/pinentry-script`: a password, `CANCEL`,
        /// `HANG`, …); `nil` means 64 copies of ``DaemonHarness/testLoginPassword``. Each start begins at the
        /// first answer, with an empty `<name>.pinentry-log`.
        public var pinentryAnswers: [String]?
        /// The scripted pinentry's answers to confirmations (`OK`, `NOTOK`, `CANCEL`), in order; `nil` answers
        /// every confirmation OK.
        public var pinentryConfirms: [String]? = nil
        /// Added to (and overriding) the daemon's environment.
        public var environment: [String: String]
        /// Names the instance's files in the bus directory: `<name>.log`, `<name>.pinentry-log`, … Give restarts
        /// distinct names to keep every instance's log.
        public var name: String
        /// How long to wait for the daemon to own `org.freedesktop.secrets`.
        public var timeout: Duration
        /// A command that execs cofferd in place (its path and arguments follow), such as `nsenter -t PID -m --`
        /// to run it in another mount namespace; empty runs cofferd directly. It must not fork, so the process the
        /// harness watches and signals is cofferd itself.
        public var launcher: [String] = []
        /// Standard input for `--unlock`, which the test writes ``loginPassword`` to (and closes) when it chooses,
        /// to hold an unlock back while cofferd serves; `nil` gives the password in a file before the start.
        public var loginPasswordPipe: Pipe? = nil
        /// `--access-control` for this start (`off` unless a suite about access control says otherwise:
        /// ``DaemonHarness/startSubprocess`` says why); `nil` passes none, to test cofferd's own default.
        public var accessControl: String? = "off"

        /// - Parameters:
        ///   - arguments: extra cofferd options.
        ///   - loginPassword: the `--unlock` password, or `nil`.
        ///   - pinentryAnswers: the scripted pinentry's answers, or `nil` for the test login password.
        ///   - environment: extra environment variables.
        ///   - name: the prefix of the instance's files in the bus directory.
        ///   - timeout: the readiness deadline.
        public init(arguments: [String] = [], loginPassword: String? = DaemonHarness.testLoginPassword,
                    pinentryAnswers: [String]? = nil, environment: [String: String] = [:],
                    name: String = "cofferd", timeout: Duration = DaemonHarness.readinessTimeout) {
            self.arguments = arguments
            self.loginPassword = loginPassword
            self.pinentryAnswers = pinentryAnswers
            self.environment = environment
            self.name = name
            self.timeout = timeout
        }
    }

    /// Writes `CONFIG_HOME/coffer/cofferd.conf` with `access-control = off`, for a cofferd the test does not start
    /// itself (D-Bus activation, `coffer takeover`) in a test that mixes programs for another purpose
    /// (`startSubprocess` says why).
    public static func turnAccessControlOff(configHome: URL) throws {
        let directory = configHome.appendingPathComponent("coffer", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("[defaults]\naccess-control = off\n".utf8).write(to: directory.appendingPathComponent("cofferd.conf"))
    }

    /// Argon2id settings that make each new password cost milliseconds, for tests that start cofferd many times.
    public static let cheapKeyDerivation = ["--kdf-iterations", "1", "--kdf-memory", "256"]

    /// Starts the built cofferd on `bus` with `options` and returns once it owns `org.freedesktop.secrets`.
    /// - Parameters:
    ///   - bus: the private bus; its scratch directory holds HOME, so data survives restarts on the same bus.
    ///   - options: the instance's settings.
    /// - Throws: ``StartError`` as ``start(_:on:timeout:arguments:loginPassword:)``.
    public static func start(on bus: TestBus, options: SubprocessOptions) async throws -> DaemonHarness {
        try await startSubprocess(on: bus, timeout: options.timeout, extraArguments: options.arguments,
                                  loginPassword: options.loginPassword, logName: options.name,
                                  pinentryAnswers: options.pinentryAnswers, extraEnvironment: options.environment,
                                  freshPinentryState: true, launcher: options.launcher,
                                  pinentryConfirms: options.pinentryConfirms,
                                  loginPasswordPipe: options.loginPasswordPipe,
                                  accessControl: options.accessControl)
    }

    /// Where cofferd keeps its collection files: `$XDG_DATA_HOME/coffer`.
    public var dataDirectory: URL { homeDirectory.appendingPathComponent(".local/share/coffer", isDirectory: true) }

    /// The file of the persistent collection `id`.
    public func collectionFile(_ id: String) -> URL { dataDirectory.appendingPathComponent("\(id).coffer") }

    /// The process ids of this instance's scripted pinentries so far, in the order they started.
    public var pinentryProcessIDs: [Int32] {
        let name = logFile.deletingPathExtension().lastPathComponent
        let url = bus.directory.appendingPathComponent("\(name).pinentry-pids")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { Int32($0) }
    }

    /// The commands this instance's scripted pinentries received so far (`GETPIN`, `SETDESC …`; never a password).
    public var pinentryCommands: [String] {
        let name = logFile.deletingPathExtension().lastPathComponent
        let url = bus.directory.appendingPathComponent("\(name).pinentry-log")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }
}

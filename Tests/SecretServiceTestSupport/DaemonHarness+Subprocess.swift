// SPDX-License-Identifier: Apache-2.0
// The subprocess mode: find the built cofferd, launch it in a scratch HOME, wait for its bus name, stop it.

import DBusTransport
import DBusWire
public import Foundation
import Glibc

extension DaemonHarness {
    /// What ended the wait for readiness.
    private enum Readiness: Sendable {
        case owned(BusName)
        case exited(DaemonExit)
        case timedOut
    }

    static func startSubprocess(on bus: TestBus, timeout: Duration, extraArguments: [String] = [],
                                loginPassword: String? = nil, logName: String = "cofferd",
                                pinentryAnswers: [String]? = nil, extraEnvironment: [String: String] = [:],
                                freshPinentryState: Bool = false, launcher: [String] = [],
                                pinentryConfirms: [String]? = nil, loginPasswordPipe: Pipe? = nil,
                                accessControl: String? = "off") async throws
        -> DaemonHarness {
        let executable = try executableURL()
        var environment = try scratchEnvironment(in: bus)
        // Password prompts go to the scripted pinentry, which answers with the test login password unless told
        // otherwise.
        let answers = pinentryAnswers ?? Array(repeating: testLoginPassword, count: 64)
        // No log may ever show a password the daemon was given.
        TestLogArchive.register(answers + [loginPassword].compactMap { $0 })
        // In a file rather than the environment: cofferd's memory is scanned for passwords, and its environment
        // block would hold them for its whole life.
        let answersFile = bus.directory.appendingPathComponent("\(logName).pinentry-answers")
        try Data(answers.joined(separator: ",").utf8).write(to: answersFile)
        let pinentryState = bus.directory.appendingPathComponent("\(logName).pinentry-state")
        let pinentryLog = bus.directory.appendingPathComponent("\(logName).pinentry-log")
        let pinentryPIDs = bus.directory.appendingPathComponent("\(logName).pinentry-pids")
        let confirmState = bus.directory.appendingPathComponent("\(logName).pinentry-confirm-state")
        if freshPinentryState {
            try? FileManager.default.removeItem(at: confirmState)
            try? FileManager.default.removeItem(at: pinentryState)
            try? FileManager.default.removeItem(at: pinentryLog)
            try? FileManager.default.removeItem(at: pinentryPIDs)
        }
        environment["PINENTRY_USER_DATA"] = try pinentrySettings(
            at: bus.directory.appendingPathComponent("\(logName).pinentry-settings"),
            ["COFFER_TEST_PINENTRY_ANSWERS_FILE": answersFile.path,
             "COFFER_TEST_PINENTRY_STATE": pinentryState.path,
             "COFFER_TEST_PINENTRY_LOG": pinentryLog.path,
             "COFFER_TEST_PINENTRY_PIDS": pinentryPIDs.path,
             "COFFER_TEST_PINENTRY_CONFIRMS": (pinentryConfirms ?? []).joined(separator: ","),
             "COFFER_TEST_PINENTRY_CONFIRM_STATE": confirmState.path]).path
        let pinentry = scriptedPinentry()
        environment["DISPLAY"] = DaemonHarness.scriptedPinentryDisplay
        environment.merge(extraEnvironment) { $1 }
        let (logFile, logHandle, watcher) = try await prepareLaunch(on: bus, logName: logName)

        let process = Process()
        process.executableURL = launcher.first.map { URL(fileURLWithPath: $0) } ?? executable
        let launching: [String] = Array(launcher.dropFirst()) + (launcher.isEmpty ? [] : [executable.path])
        // Tests check behaviour, not key-derivation cost: dozens of daemons start at once on two cores. A test
        // that wants other parameters passes them in `extraArguments`, which come later and win.
        let cheap: [String] = ["--kdf-iterations", "1", "--kdf-memory", "256"]
        // Suites mix secret-tool, python, the coffer CLI and this process on one keyring, which access control
        // would rightly turn into prompts; they test other things. Access-control suites pass
        // `--access-control ask`, which comes later and wins.
        let access: [String] = accessControl.map { ["--access-control", $0] } ?? []
        let unlock: [String] = loginPassword == nil ? [] : ["--unlock"]
        process.arguments = launching + ["--address", bus.address, "--foreground", "--log-level", "debug",
                                      "--pinentry", pinentry.path] + cheap + access + extraArguments + unlock
        process.environment = environment
        process.currentDirectoryURL = bus.directory
        if let loginPasswordPipe, loginPassword != nil {
            process.standardInput = loginPasswordPipe
        } else if let loginPassword {
            // As a login manager would: the password arrives on standard input, never on the command line.
            let input = bus.directory.appendingPathComponent("\(logName).stdin")
            try Data(loginPassword.utf8).write(to: input)
            process.standardInput = try FileHandle(forReadingFrom: input)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        process.standardOutput = logHandle
        process.standardError = logHandle
        return try await launch(process, on: bus, watcher: watcher, logFile: logFile, logHandle: logHandle,
                                name: "cofferd", timeout: timeout, stopsOnSIGTERM: true)
    }

    /// The provider's log file (created empty, with a handle for its output) and a connection already watching for
    /// the name: subscribed before launching, so the name appearing cannot be missed.
    static func prepareLaunch(on bus: TestBus, logName: String) async throws -> (URL, FileHandle, Connection) {
        let logFile = bus.directory.appendingPathComponent("\(logName).log")
        guard FileManager.default.createFile(atPath: logFile.path, contents: nil) else {
            throw StartError("cannot create \(logFile.path)")
        }
        let logHandle = try FileHandle(forWritingTo: logFile)
        let watcher = try await bus.connect()
        try await watcher.addMatch(nameOwnerRule)
        return (logFile, logHandle, watcher)
    }

    /// Runs `process` (a Secret Service provider, already configured) and waits until it owns
    /// `org.freedesktop.secrets` on `bus`, exits, or `timeout` passes.
    /// - Parameters:
    ///   - watcher: a connection already subscribed with ``nameOwnerRule``; closed here.
    ///   - logHandle: the child's output file, closed here once the child holds its own descriptor.
    ///   - name: the program's name, for error messages.
    ///   - stopsOnSIGTERM: whether ``stop()`` sends SIGTERM first; otherwise it kills at once.
    static func launch(_ process: Process, on bus: TestBus, watcher: Connection, logFile: URL,
                       logHandle: FileHandle, name: String, timeout: Duration,
                       stopsOnSIGTERM: Bool) async throws -> DaemonHarness {
        let monitor = ProcessExitMonitor(watching: process)
        do {
            try process.run()
        } catch {
            try? logHandle.close()
            await watcher.close()
            throw StartError("cannot launch \(process.executableURL?.path ?? name): \(error)")
        }
        try? logHandle.close()  // the child holds its own descriptor
        let pid = process.processIdentifier

        let readiness = await withTaskGroup(of: Readiness?.self) { group in
            group.addTask { await waitForNameOwner(on: watcher).map(Readiness.owned) }
            group.addTask { await monitor.wait().map(Readiness.exited) }
            group.addTask {
                await deadlinePassed(after: timeout) ? .timedOut : nil
            }
            defer { group.cancelAll() }
            while let next = await group.next() {
                if let next { return next }
            }
            return Readiness.timedOut
        }
        await watcher.close()

        switch readiness {
        case .owned(let owner):
            let control = Control(
                stop: {
                    stopsOnSIGTERM ? await terminate(pid: pid, monitor: monitor) : await killNow(pid: pid, monitor: monitor)
                },
                kill: { await killNow(pid: pid, monitor: monitor) },
                wait: { await monitor.wait() ?? .failed("stopped waiting: the task was cancelled") })
            return DaemonHarness(bus: bus, uniqueName: owner, logFile: logFile, processID: pid, control: control)
        case .exited(let exit):
            throw StartError("\(name) \(exit) before owning org.freedesktop.secrets; log:\n\(tail(of: logFile))")
        case .timedOut:
            _ = await killNow(pid: pid, monitor: monitor)
            throw StartError("\(name) did not own org.freedesktop.secrets within \(timeout); log:\n\(tail(of: logFile))")
        }
    }

    // MARK: - Stopping

    /// SIGTERM, then wait; if the process ignores it for 15 s, SIGKILL (the result then shows the signal).
    private static func terminate(pid: Int32, monitor: ProcessExitMonitor) async -> DaemonExit {
        if let exit = monitor.exit { return exit }
        Glibc.kill(pid, SIGTERM)
        if let exit = try? await withDeadline(.seconds(15), waitingFor: "cofferd to exit after SIGTERM", {
            await monitor.wait()
        }) {
            return exit
        }
        return await killNow(pid: pid, monitor: monitor)
    }

    private static func killNow(pid: Int32, monitor: ProcessExitMonitor) async -> DaemonExit {
        if let exit = monitor.exit { return exit }
        Glibc.kill(pid, SIGKILL)
        return await monitor.wait() ?? .signalled(SIGKILL)
    }

    // MARK: - Environment

    /// HOME, XDG_* and the bus address, all inside the bus's scratch directory; nothing inherited but PATH and the
    /// sanitizer options, so the daemon can never touch the user's keyrings or session bus.
    static func scratchEnvironment(in bus: TestBus) throws -> [String: String] {
        let home = bus.directory.appendingPathComponent("home", isDirectory: true)
        let directories = [
            "HOME": home,
            "XDG_DATA_HOME": home.appendingPathComponent(".local/share", isDirectory: true),
            "XDG_CONFIG_HOME": home.appendingPathComponent(".config", isDirectory: true),
            "XDG_CACHE_HOME": home.appendingPathComponent(".cache", isDirectory: true),
            "XDG_RUNTIME_DIR": bus.directory.appendingPathComponent("runtime", isDirectory: true),
        ]
        for url in directories.values {
            try FileManager.default.createDirectory(
                at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        var environment = directories.mapValues(\.path)
        environment["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        environment.merge(SanitizerOptions.inherited) { $1 }
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        environment["LANG"] = "C.UTF-8"
        return environment
    }

    // MARK: - Finding the executable

    /// The built `cofferd`: `$COFFERD_PATH`, else next to the test binary, else `.build/debug/cofferd` above the
    /// package root (found from this file's path).
    /// - Throws: ``StartError`` when it is not built.
    public static func executableURL(filePath: String = #filePath) throws -> URL {
        var candidates: [URL] = []
        if let override = ProcessInfo.processInfo.environment["COFFERD_PATH"], !override.isEmpty {
            candidates.append(URL(fileURLWithPath: override))
        }
        if let testBinary = Bundle.main.executableURL {
            candidates.append(testBinary.resolvingSymlinksInPath().deletingLastPathComponent()
                .appendingPathComponent("cofferd"))
        }
        if let first = CommandLine.arguments.first, first.contains("/") {
            candidates.append(URL(fileURLWithPath: first).resolvingSymlinksInPath().deletingLastPathComponent()
                .appendingPathComponent("cofferd"))
        }
        var directory = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        while directory.path != "/" {
            candidates.append(directory.appendingPathComponent(".build/debug/cofferd"))
            directory.deleteLastPathComponent()
        }
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) {
            return found
        }
        throw StartError("cofferd is not built (run `swift build --product cofferd`); looked at: "
            + candidates.map(\.path).joined(separator: ", "))
    }

    /// The `DISPLAY` a cofferd gets when its prompts go to the scripted pinentry. cofferd shows a pinentry only
    /// where someone could see it (a display or a terminal); the scripted one needs neither, so this names a display
    /// nothing draws on. A test of the no-display path sets `DISPLAY` to "".
    public static let scriptedPinentryDisplay = ":coffer-test"

    /// `Tests/Fixtures/pinentry-script`, found from this file's path.
    public static func scriptedPinentry(filePath: String = #filePath) -> URL {
        URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/pinentry-script")
    }

    /// Writes the scripted pinentry's settings to `url`, for cofferd's environment as `PINENTRY_USER_DATA`.
    ///
    /// cofferd hands a pinentry only the display, terminal and locale variables of its environment, and
    /// `PINENTRY_USER_DATA`; the script reads its settings from the file that variable names. A file to read, not
    /// a wrapper to run: an executable written while another thread spawns a process may be held open for writing
    /// by that child and then refuse to start.
    public static func pinentrySettings(at url: URL, _ settings: [String: String]) throws -> URL {
        func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }
        let lines = settings.sorted { $0.key < $1.key }.map { "\($0.key)=\(quoted($0.value))\n" }
        try Data(lines.joined().utf8).write(to: url)
        return url
    }

    /// The last lines of the log, for failure messages.
    static func tail(of logFile: URL, lines: Int = 40) -> String {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }
}

// SPDX-License-Identifier: Apache-2.0
// gnome-keyring-daemon as a second provider, started headless on a private bus, so suites that must work against
// any Secret Service provider (Keychain, coffer) run against the reference implementation too.

public import Foundation

extension DaemonHarness {
    /// The password the headless gnome-keyring's `login` keyring is created with and unlocked by.
    public static let gnomeKeyringPassword = "gnome keyring test password"

    /// Whether `gnome-keyring-daemon` is installed (`make setup-test` installs it).
    public static var gnomeKeyringInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: gnomeKeyringExecutable)
    }

    static let gnomeKeyringExecutable = "/usr/bin/gnome-keyring-daemon"

    /// Starts `gnome-keyring-daemon --foreground --unlock --components=secrets` on `bus`, with HOME, XDG
    /// directories and runtime directory inside the bus's scratch directory, and waits until it owns
    /// `org.freedesktop.secrets`.
    ///
    /// The login password arrives on standard input, as PAM would give it; on first start gnome-keyring creates
    /// the `login` keyring with it and points the `default` alias there. Its keyring files end up in
    /// ``gnomeKeyringDirectory``. ``stop()`` kills it: it does not exit on SIGTERM when in the foreground.
    /// - Parameters:
    ///   - bus: the private bus.
    ///   - password: the login keyring's password.
    ///   - timeout: how long to wait for the name.
    /// - Throws: ``StartError`` when gnome-keyring is missing or does not come up.
    public static func startGnomeKeyring(on bus: TestBus, password: String = gnomeKeyringPassword,
                                         timeout: Duration = .seconds(20)) async throws -> DaemonHarness {
        guard gnomeKeyringInstalled else {
            throw StartError("gnome-keyring-daemon is not installed (run `make setup-test`)")
        }
        let environment = try scratchEnvironment(in: bus)
        let (logFile, logHandle, watcher) = try await prepareLaunch(on: bus, logName: "gnome-keyring")

        let process = Process()
        process.executableURL = URL(fileURLWithPath: gnomeKeyringExecutable)
        process.arguments = ["--foreground", "--unlock", "--components=secrets"]
        process.environment = environment
        process.currentDirectoryURL = bus.directory
        let input = bus.directory.appendingPathComponent("gnome-keyring.stdin")
        try Data(password.utf8).write(to: input)
        process.standardInput = try FileHandle(forReadingFrom: input)
        process.standardOutput = logHandle
        process.standardError = logHandle
        return try await launch(process, on: bus, watcher: watcher, logFile: logFile, logHandle: logHandle,
                                name: "gnome-keyring-daemon", timeout: timeout,
                                // gnome-keyring 42 in --foreground mode keeps running after SIGTERM and SIGINT; it
                                // writes each change to disk before answering, so killing it loses nothing.
                                stopsOnSIGTERM: false)
    }

    /// Where the headless gnome-keyring keeps its `*.keyring` files.
    public var gnomeKeyringDirectory: URL {
        homeDirectory.appendingPathComponent(".local/share/keyrings", isDirectory: true)
    }
}

// SPDX-License-Identifier: Apache-2.0
// A private dbus-daemon per test suite, so integration tests never touch the user's session bus.

public import DBusTransport
public import Foundation
import CHardening
import Glibc
public import Logging
import Synchronization

/// A private session-type `dbus-daemon` in a scratch directory.
///
/// The bus reads only its own `bus.conf`: it listens in ``directory``, activates services from
/// `directory/services` (put generated `.service` files there) and allows everything. Pass ``address``
/// explicitly to whatever should connect; the process environment is never changed.
public final class TestBus: Sendable {
    /// The address printed by the daemon, for `Connection.connect(address:)` or a child's environment.
    public let address: String
    /// The scratch directory: `bus.conf`, the listening socket, `services/`, and room for HOME/XDG dirs.
    public let directory: URL
    /// Where activatable `.service` files go.
    public var servicesDirectory: URL { directory.appendingPathComponent("services", isDirectory: true) }

    private let pid: pid_t
    private let stopped = Mutex(false)
    private let crashed = Mutex(false)

    /// Failures starting the daemon.
    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Writes the configuration, starts `dbus-daemon` and waits until it prints its address.
    ///
    /// The daemon is spawned with `posix_spawn` and an empty signal mask rather than Foundation's `Process`: a
    /// child spawned from a Swift concurrency worker thread inherits that thread's mask, in which SIGTERM is
    /// blocked, so it would ignore ``stop()``.
    /// - Parameter otherUsers: let connections of every user in (`<allow user="*"/>`), for a test that runs a
    ///   daemon as another user; the test still has to open the directory and the socket to that user.
    /// - Throws: ``StartError`` when the daemon is missing or exits before printing an address.
    public init(otherUsers: Bool = false) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("coffer-bus-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("services", isDirectory: true), withIntermediateDirectories: true)
        // Private, like a real runtime directory: clients use it as XDG_RUNTIME_DIR, and the Keychain library
        // takes its lock only in a directory closed to other users.
        chmod(directory.path, 0o700)
        let config = directory.appendingPathComponent("bus.conf")
        try Self.configuration(directory: directory.path, otherUsers: otherUsers).write(to: config, atomically: true, encoding: .utf8)
        let log = directory.appendingPathComponent("bus.log").path
        let arguments = [Self.daemonExecutable(), "--nofork", "--nosyslog", "--print-address=1",
                         "--config-file=\(config.path)"]
        let pid: pid_t, output: Int32
        do {
            (pid, output) = try Self.spawn(arguments, stderrPath: log)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        let address = Self.readLine(from: output)
        Glibc.close(output)
        guard let address, !address.isEmpty else {
            kill(pid, SIGKILL)
            Self.reap(pid)
            let details = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(at: directory)
            throw StartError(description: "dbus-daemon exited without printing an address: \(details)")
        }
        self.address = address
        self.directory = directory
        self.pid = pid
    }

    deinit { stop() }

    /// Runs `body` with a fresh private bus and stops the bus afterwards, whether `body` throws or not.
    public static func withPrivateBus<T>(
        isolation: isolated (any Actor)? = #isolation, _ body: (TestBus) async throws -> T
    ) async throws -> T {
        let bus = try TestBus()
        defer { bus.stop() }
        return try await body(bus)
    }

    /// Opens a new connection to this bus.
    public func connect(logger: Logger = Logger(label: "coffer.testbus")) async throws -> Connection {
        try await Connection.connect(address: address, logger: logger)
    }

    /// Sends SIGTERM, waits for the daemon to exit, keeps the logs in the run's ``TestLogArchive`` (if any), and
    /// removes ``directory``. Idempotent.
    public func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        if !crashed.withLock({ $0 }) {
            kill(pid, SIGTERM)
            Self.reap(pid)
        }
        TestLogArchive.collect(from: directory)
        try? FileManager.default.removeItem(at: directory)
    }

    /// Kills the bus daemon abruptly, as a crashed session would, and keeps ``directory`` (HOME and logs) until
    /// ``stop()``. Clients see their connections drop.
    public func crash() {
        let running = stopped.withLock { !$0 }
        guard running else { return }
        kill(pid, SIGKILL)
        Self.reap(pid)
        // The pid is reaped and may be reused: stop() must not signal it again, only archive and clean up.
        crashed.withLock { $0 = true }
    }

    // MARK: - Helpers

    /// `dbus-daemon` from `PATH`, else `/usr/bin/dbus-daemon`.
    private static func daemonExecutable() -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for entry in path.split(separator: ":") {
            let candidate = String(entry) + "/dbus-daemon"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return "/usr/bin/dbus-daemon"
    }

    /// Starts `arguments[0]` with stdout on a pipe (returned), stdin from /dev/null, stderr to `stderrPath`, no
    /// other descriptor, default signal dispositions and an empty signal mask.
    ///
    /// No other descriptor: tests run side by side in this process, and a descriptor another test holds without
    /// close-on-exec (Foundation's `Pipe` sets none) would live on in this bus daemon. A password pipe kept open
    /// there never reaches end of file in the cofferd reading it.
    private static func spawn(_ arguments: [String], stderrPath: String) throws -> (pid_t, Int32) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw StartError(description: "pipe failed: errno \(errno)") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        defer { Glibc.close(ends[1]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let closing = posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        guard closing == 0 else {
            Glibc.close(ends[0])
            throw StartError(description: "cannot prepare the bus daemon's descriptors: errno \(closing)")
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t(), defaults = sigset_t()
        sigemptyset(&mask)
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, environ)
        guard result == 0 else {
            Glibc.close(ends[0])
            throw StartError(description: "cannot start \(arguments[0]): errno \(result)")
        }
        return (pid, ends[0])
    }

    /// Waits for `pid` to exit.
    private static func reap(_ pid: pid_t) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// Blocks until one line (the address) arrives, or end of file.
    private static func readLine(from descriptor: Int32) -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(descriptor, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1, byte != UInt8(ascii: "\n") else { break }
            bytes.append(byte)
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    static func configuration(directory: String, otherUsers: Bool = false) -> String {
        let dir = xmlEscaped(directory)
        return """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <keep_umask/>
          <listen>unix:dir=\(xmlEscaped(addressEscaped(directory)))</listen>
          <auth>EXTERNAL</auth>
          <servicedir>\(dir)/services</servicedir>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>\(otherUsers ? "\n    <allow user=\"*\"/>" : "")
          </policy>
          <limit name="service_start_timeout">10000</limit>
          <limit name="auth_timeout">10000</limit>
          <limit name="max_incoming_bytes">1000000000</limit>
          <limit name="max_outgoing_bytes">1000000000</limit>
          <limit name="max_message_size">1000000000</limit>
          <limit name="max_replies_per_connection">50000</limit>
          <limit name="max_match_rules_per_connection">50000</limit>
          <limit name="max_names_per_connection">50000</limit>
        </busconfig>

        """
    }

    private static func xmlEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// D-Bus address value escaping: `[-0-9A-Za-z_/.\*]` stay, every other byte becomes `%XX`.
    private static func addressEscaped(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "/"),
                 UInt8(ascii: "."), UInt8(ascii: "\\"), UInt8(ascii: "*"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return result
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

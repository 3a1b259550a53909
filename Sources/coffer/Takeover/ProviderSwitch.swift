// SPDX-License-Identifier: Apache-2.0
// Stopping the provider that owns org.freedesktop.secrets and starting cofferd in its place.

import CHardening
import DBusTransport
import DBusWire
import Foundation
import SecretCrypto
import SecretServiceProtocol
import SecretStore

#if canImport(Glibc)
import Glibc
#endif

enum ProviderSwitch {
    /// How long a provider may take to let go of the name after a signal, and cofferd to claim it.
    static let patience = Duration.seconds(10)
    /// How long a provider gets to exit after SIGTERM before it is killed.
    static let politeness = Duration.seconds(2)

    /// Stops the process owning the name: SIGTERM, which lets it finish writing, then SIGKILL if it keeps the name
    /// (gnome-keyring in the foreground ignores SIGTERM; it writes every change before answering, so nothing is
    /// lost). The pid is checked against the executable seen at the start, so a reused pid is never signalled.
    /// - Throws: ``CofferError`` when it still owns the name after both.
    static func stop(_ process: ProviderProcess, on connection: Connection) async throws {
        for (signal, patience) in [(SIGTERM, Self.politeness), (SIGKILL, Self.patience)] {
            guard ProviderProcess(pid: process.pid).executable == process.executable else { break }
            kill(pid_t(process.pid), signal)
            if try await waitForOwner(on: connection, within: patience, until: { $0 == nil || $0 != process.pid }) {
                return
            }
        }
        if try await connection.processID(of: SecretServiceNames.busName) == process.pid {
            throw CofferError(.failure, "\(process.name) (pid \(process.pid)) still owns org.freedesktop.secrets "
                + "after SIGTERM and SIGKILL")
        }
    }

    /// Starts cofferd for this session: through `systemctl --user start cofferd.service` when the session has a
    /// systemd user instance that knows the unit and cofferd's `login` collection exists, else as a process of its own session (it outlives this command
    /// and the terminal) with the login password on a pipe for `--unlock`.
    /// - Returns: how it was started, for the report.
    static func start(cofferd: String, password: SecretBytes, directories: UserDirectories,
                      on connection: Connection) async throws -> String {
        // The unit cannot hand cofferd a password, so it is used only once `login` exists; the first start
        // creates it with --unlock, and the unit takes over from the next login on.
        let loginFile = Doctor.defaultDataDirectory + "/login" + DataDirectoryInspection.collectionFileSuffix
        if UserSystemd.isAvailable && UserSystemd.knows("cofferd.service")
            && FileManager.default.fileExists(atPath: loginFile) {
            try UserSystemd.run(["start", "cofferd.service"])
            guard try await waitForOwner(on: connection, within: patience, until: { $0 != nil }) else {
                throw CofferError(.failure, "cofferd.service started but nothing took org.freedesktop.secrets; see "
                    + "`journalctl --user -u cofferd`")
            }
            return "started cofferd.service (systemd --user)"
        }
        let pid = try spawnDetached(cofferd, log: directories.cofferdLog, password: password)
        let clock = ContinuousClock()
        let deadline = clock.now + patience
        while clock.now < deadline {
            if let owner = try await connection.processID(of: SecretServiceNames.busName),
               ProviderProcess(pid: owner).isCofferd {
                return "started \(cofferd) (pid \(pid)); its log is \(directories.cofferdLog)"
            }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                throw CofferError(.failure, "cofferd exited (status \(status >> 8)) before serving; see "
                    + directories.cofferdLog)
            }
            // The bus has no way to wait for a name to get an owner short of watching signals on a connection
            // whose messages the client library already consumes; polling the owner is cheap.
            try await Task.sleep(for: .milliseconds(25))
        }
        throw CofferError(.failure, "cofferd (pid \(pid)) did not take org.freedesktop.secrets within \(patience); "
            + "see \(directories.cofferdLog)")
    }

    /// Polls the name's owner pid until `condition` holds or `patience` runs out.
    private static func waitForOwner(on connection: Connection, within patience: Duration,
                                     until condition: (UInt32?) -> Bool) async throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + patience
        while clock.now < deadline {
            if condition(try await connection.processID(of: SecretServiceNames.busName)) { return true }
            try await Task.sleep(for: .milliseconds(25))
        }
        return false
    }

    /// `cofferd --unlock` in a new session, stdin a pipe carrying the password (never argv or the environment),
    /// stdout and stderr appended to `log`.
    private static func spawnDetached(_ cofferd: String, log: String, password: SecretBytes) throws -> pid_t {
        try FileManager.default.createDirectory(atPath: (log as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        let logFD = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard logFD >= 0 else { throw CofferError(.ioError, "cannot open \(log): \(String(cString: strerror(errno)))") }
        defer { close(logFD) }
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else {
            throw CofferError(.ioError, "cannot make a pipe: \(String(cString: strerror(errno)))")
        }
        // Only the copies dup2'd onto the child's stdin may cross exec (pipe2 is not in Swift's Glibc module).
        for fd in pipeFDs { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[0], STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, logFD, STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, logFD, STDERR_FILENO)
        // Nothing else crosses over: a descriptor the daemon kept open would be held for its whole life (the
        // terminal, or the pipe through which whoever ran coffer waits for it to finish).
        let closing = posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1)
        guard closing == 0 else {
            close(pipeFDs[0])
            close(pipeFDs[1])
            throw CofferError(.ioError, "cannot prepare cofferd's descriptors: \(String(cString: strerror(closing)))")
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A child spawned from a concurrency worker thread inherits that thread's signal mask, in which SIGTERM
        // is blocked: the daemon could then not be stopped. Start it with an empty mask and default handlers.
        var mask = sigset_t(), defaults = sigset_t()
        sigemptyset(&mask)
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        // POSIX_SPAWN_SETSID (glibc defines it only under _GNU_SOURCE, which Swift's Glibc module does not set):
        // the daemon leaves our session, so closing the terminal does not hang it up.
        let setSessionID: Int32 = 0x80
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | setSessionID))
        let arguments = [cofferd, "--unlock"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, cofferd, &actions, &attributes, &argv, environ)
        close(pipeFDs[0])
        guard result == 0 else {
            close(pipeFDs[1])
            throw CofferError(.failure, "cannot start \(cofferd): \(String(cString: strerror(result)))")
        }
        password.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(pipeFDs[1], raw.baseAddress! + offset, raw.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { break }
                offset += written
            }
        }
        close(pipeFDs[1])
        return pid
    }
}

// SPDX-License-Identifier: Apache-2.0
// Starts a helper program with its stdin and stdout on one end of a socket pair, and reaps it again.

import CHardening
#if canImport(Glibc)
import Glibc
#endif

/// A helper program started by ``ChildProcess/spawn(executable:arguments:environment:)``.
struct ChildProcess: Sendable {
    /// The child's process id.
    let pid: pid_t
    /// Our end of the socket pair; the child has the other end as both stdin and stdout. Close-on-exec.
    let socket: Int32

    // MARK: - Starting

    /// Finds `program` the way `execvp` would, but in the child's `PATH` rather than ours: the environment handed
    /// to the child may differ from the daemon's own.
    /// - Parameters:
    ///   - program: A name to look up, or a path (anything containing `/`), which is used as it is.
    ///   - environment: The child's environment; its `PATH` is searched.
    /// - Returns: An executable path, or `nil` when nothing executable was found.
    static func resolve(_ program: String, environment: [String: String]) -> String? {
        if program.contains("/") { return access(program, X_OK) == 0 ? program : nil }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":", omittingEmptySubsequences: true) {
            let candidate = directory + "/" + program
            if access(candidate, X_OK) == 0 { return String(candidate) }
        }
        return nil
    }

    /// Starts `executable` with a socket as stdin and stdout, our stderr, no other descriptor, default signal
    /// dispositions and an empty signal mask.
    ///
    /// A socket rather than two pipes so that writing to a child that died can use `MSG_NOSIGNAL` instead of
    /// raising SIGPIPE in the daemon; libassuan servers only `read` and `write` fds 0 and 1, so they do not mind.
    /// The mask and dispositions are reset because a child spawned from a Swift concurrency thread would inherit
    /// that thread's blocked signals and could then ignore our SIGTERM. Every descriptor from 3 up is closed in the
    /// child: the daemon may have inherited some without close-on-exec from whoever started it (a login manager, a
    /// terminal, a test runner), and a program that only draws a dialog has no business with them.
    /// - Parameters:
    ///   - executable: The path of the program.
    ///   - arguments: Arguments after `argv[0]`.
    ///   - environment: The complete environment of the child.
    /// - Throws: `errno`-style codes as ``AssuanError/launchFailed(_:)``.
    static func spawn(executable: String, arguments: [String], environment: [String: String])
        throws(AssuanError) -> ChildProcess
    {
        var ends: [Int32] = [-1, -1]
        // SOCK_CLOEXEC atomically: another thread may be spawning at the same moment.
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &ends) == 0 else {
            throw .launchFailed("socketpair failed: errno \(errno)")
        }
        defer { close(ends[1]) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears close-on-exec on fds 0 and 1; the original end stays close-on-exec.
        posix_spawn_file_actions_adddup2(&actions, ends[1], 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        let closing = posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        guard closing == 0 else {
            close(ends[0])
            throw .launchFailed("cannot prepare the child's descriptors: \(String(cString: strerror(closing)))")
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t(), defaults = sigset_t()
        sigemptyset(&mask)
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD, SIGALRM, SIGUSR1, SIGUSR2] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        // No new process group: a tty pinentry in a background group would be stopped by SIGTTIN.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for entry in argv { free(entry) }
            for entry in envp { free(entry) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            close(ends[0])
            throw .launchFailed("cannot start \(executable): \(String(cString: strerror(result)))")
        }
        return ChildProcess(pid: pid, socket: ends[0])
    }

    // MARK: - Stopping

    /// Waits for the child to exit and reaps it, escalating SIGTERM → SIGKILL. Blocks: call it on a dedicated
    /// thread, never on a Swift concurrency thread.
    /// - Parameters:
    ///   - terminate: Send SIGTERM at once (cancellation); otherwise give the child `grace` to exit on its own
    ///     first (it was told `BYE`).
    ///   - grace: How long each step may take before the next, harsher one.
    func reap(terminate: Bool, grace: Duration) {
        if !terminate, waitForExit(within: grace) { return }
        kill(pid, SIGTERM)
        if waitForExit(within: grace) { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// Polls `waitpid(WNOHANG)` until the child is reaped or `timeout` passes.
    ///
    /// Polling, because Glibc's Swift module offers neither `pidfd_open` nor a SIGCHLD we could own in a library;
    /// the interval is short and this runs on the connection's own thread only.
    /// - Returns: Whether the child is gone (reaped here, or already reaped elsewhere: `ECHILD`).
    private func waitForExit(within timeout: Duration) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid || (result < 0 && errno == ECHILD) { return true }
            if result < 0 && errno != EINTR { return true }
            if clock.now >= deadline { return false }
            var interval = timespec(tv_sec: 0, tv_nsec: 5_000_000)
            nanosleep(&interval, nil)
        }
    }

    // MARK: - Environment

    /// The daemon's own environment, as a dictionary.
    static func currentEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        return result
    }
}

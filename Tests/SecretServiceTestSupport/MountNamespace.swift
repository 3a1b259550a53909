// SPDX-License-Identifier: Apache-2.0
// A private mount namespace kept alive by a helper process, so a test can give cofferd a tiny or read-only disk.

public import Foundation
import Glibc
import Synchronization

/// A mount namespace of its own (`unshare -m`), set up by a shell script and held open by a helper that waits on its
/// standard input. Mounts made in it (a small tmpfs over the data directory, a read-only bind mount) are invisible to
/// the rest of the machine and vanish with it, even when the test process dies: the helper then reads end of file.
///
/// cofferd joins it through ``launcher`` (`nsenter`, which execs in place, so the harness still signals cofferd
/// itself); the test reaches files inside through ``path(_:)`` and runs commands inside with ``run(_:in:)``.
/// Needs root (or CAP_SYS_ADMIN), as CI has.
public final class MountNamespace: Sendable {
    /// The helper's process ID: the namespace is `/proc/<holder>/ns/mnt`.
    public let holderPID: Int32
    private let input: Mutex<FileHandle?>
    private let monitor: ProcessExitMonitor

    /// Why the namespace could not be set up.
    public struct SetupError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts the helper and waits for `script` (run by `sh -e` inside the new namespace with `arguments` as `$1`…)
    /// to finish.
    /// - Throws: ``SetupError`` with the script's output when it fails.
    public init(script: String, arguments: [String]) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        // After the script, `exec cat` keeps the namespace alive until our end of its standard input closes.
        process.arguments = ["--mount", "--propagation", "private", "/bin/sh", "-ec",
                             script + "\necho ready\nexec cat >/dev/null", "sh"] + arguments
        let stdin = Pipe(), stdout = Pipe()
        // Other tests spawn processes concurrently; they must not inherit these ends, or the helper would never see
        // end of file and we would never see its output end. (The child's own copies, dup2'ed onto 0 and 1, stay.)
        for handle in [stdin.fileHandleForReading, stdin.fileHandleForWriting, stdout.fileHandleForReading,
                       stdout.fileHandleForWriting] {
            _ = fcntl(handle.fileDescriptor, F_SETFD, FD_CLOEXEC)
        }
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stdout
        let monitor = ProcessExitMonitor(watching: process)
        try process.run()
        let reader = stdout.fileHandleForReading
        let output: String = await withCheckedContinuation { continuation in
            // One short blocking read on a worker thread; the helper writes "ready" or its error and then idles.
            DispatchQueue.global().async {
                var text = ""
                while !text.contains("ready\n") {
                    let chunk = reader.availableData
                    if chunk.isEmpty { break }
                    text += String(decoding: chunk, as: UTF8.self)
                }
                continuation.resume(returning: text)
            }
        }
        guard output.hasSuffix("ready\n") else {
            try? stdin.fileHandleForWriting.close()
            _ = await monitor.wait()
            throw SetupError(description: "the mount namespace could not be set up: \(output)")
        }
        holderPID = process.processIdentifier
        input = Mutex(stdin.fileHandleForWriting)
        self.monitor = monitor
    }

    /// A small tmpfs of `kibibytes` over `directory` (created if missing), in a fresh namespace.
    public static func tmpfs(at directory: URL, kibibytes: Int) async throws -> MountNamespace {
        try await MountNamespace(
            script: "mkdir -p \"$1\"\nmount -t tmpfs -o size=\(kibibytes)k,mode=0700 coffer-test \"$1\"",
            arguments: [directory.path])
    }

    /// Prefix for ``DaemonHarness/SubprocessOptions/launcher``: runs cofferd inside this namespace.
    public var launcher: [String] { ["/usr/bin/nsenter", "-t", "\(holderPID)", "-m", "--"] }

    /// `path` as the namespace sees it, reachable from outside through `/proc/<holder>/root`.
    public func path(_ path: URL) -> URL {
        URL(fileURLWithPath: "/proc/\(holderPID)/root" + path.path)
    }

    /// Runs `command` inside the namespace (for `mount -o remount,…`).
    public func run(_ command: [String], in environment: ClientEnvironment) async throws -> ClientOutput {
        try await environment.run("/usr/bin/nsenter", ["-t", "\(holderPID)", "-m", "--"] + command)
    }

    /// Ends the helper, which ends the namespace once no process is left in it. Idempotent.
    public func close() async {
        let handle = input.withLock { handle in
            defer { handle = nil }
            return handle
        }
        try? handle?.close()
        // A child spawned elsewhere before the descriptors were marked close-on-exec may still hold the helper's
        // input open; end the helper outright rather than wait for end of file.
        kill(holderPID, SIGKILL)
        _ = await monitor.wait()
    }
}

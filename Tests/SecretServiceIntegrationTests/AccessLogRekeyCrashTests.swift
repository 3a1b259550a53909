// SPDX-License-Identifier: Apache-2.0
// cofferd killed (SIGKILL) in the middle of a password change that re-keys a keyring with logged uses: at each
// point, the next cofferd unlocks the keyring with the password its file holds and its access log still opens the
// entries written before the change.

import Foundation
import Glibc
import SecretServiceTestSupport
import Testing

@Suite("Access log: a kill while a password change re-keys the keyring", .timeLimit(.minutes(3)))
struct AccessLogRekeyCrashTests {
    /// Where cofferd is killed, as the system call strace stops it at (entering it, so the call never runs).
    struct KillPoint: CustomStringConvertible, Sendable {
        let description: String
        /// Whether the new file is in place when cofferd dies, so the new password unlocks.
        let replaced: Bool
        /// strace's filter: the system calls, and the paths they must touch (their own or their descriptor's).
        let calls: [String]
        let paths: @Sendable (_ dataDirectory: String, _ file: String) -> [String]
    }

    static let killPoints = [
        KillPoint(description: "when the re-keyed file is about to replace the old one", replaced: false,
                  // strace matches a rename by the name it renames (the file written beside the old one).
                  calls: ["rename", "renameat", "renameat2"], paths: { _, file in [file + ".tmp"] }),
        // The directory is synced right after the rename: the new file is in place, nothing after it has happened.
        KillPoint(description: "right after the re-keyed file replaced the old one", replaced: true,
                  calls: ["fsync", "fdatasync"], paths: { directory, _ in [directory] }),
    ]

    @Test("a password change killed before or after the re-keyed file replaces the old one keeps every older entry readable, and later entries too", arguments: killPoints)
    func killedDuringRekey(_ point: KillPoint) async throws {
        try await TestBus.withPrivateBus { bus in
            // The change, in a cofferd that sealed nothing with the old key this run, killed at the point.
            let (second, a) = try await AccessManagementTests.workWithTwoLoggedUses(on: bus)
            let coffer = CofferCLI(bus: bus)
            let directory = second.dataDirectory.path
            let file = second.collectionFile("work").path
            let paths = Set(point.paths(directory, file) + point.paths(
                second.dataDirectory.resolvingSymlinksInPath().path,
                second.collectionFile("work").resolvingSymlinksInPath().path))
            let tracer = try await SyscallKiller.attach(to: try #require(second.processID), calls: point.calls,
                                                        paths: paths.sorted(), log: bus.directory)
            let change = try await coffer.run(["set-keychain-password", "work"],
                                              input: "old password\nnew password\n")
            #expect(change.status != 0, "the change was cut short: \(change.text)")
            let exit = await second.waitForExit()
            #expect(exit == .signalled(SIGKILL), "cofferd \(exit); log:\n\(second.log())")
            try await tracer.finish()

            let (password, other) = point.replaced ? ("new password", "old password") : ("old password", "new password")
            let third = try await DaemonHarness.start(on: bus,
                                                      options: AccessManagementTests.options([], name: "third"))
            #expect(try await coffer.run(["unlock-keychain", "work"], input: other + "\n").status != 0,
                    "the file holds the \(point.replaced ? "new" : "old") master key")
            #expect(try await coffer.run(["unlock-keychain", "work"], input: password + "\n").status == 0)
            let after = try await coffer.run(["access", "log", "--collection", "work"])
            #expect(after.status == 0 && after.stderr.isEmpty, "\(after.text)\(after.stderr)")
            #expect(after.text.split(separator: "\n").count == 2, "\(after.text)")
            // A use sealed with the key now in force, and the whole history once more after a restart.
            #expect(try await a(["read", "mail"]) == "the mail secret")
            let used = try await AccessManagementTests.log(coffer, ["--collection", "work"])
            #expect(used.count == 3, "\(used)")
            _ = await third.stop()

            let fourth = try await DaemonHarness.start(on: bus,
                                                       options: AccessManagementTests.options([], name: "fourth"))
            #expect(try await coffer.run(["unlock-keychain", "work"], input: password + "\n").status == 0)
            let last = try await coffer.run(["access", "log", "--collection", "work"])
            #expect(last.status == 0 && last.stderr.isEmpty, "\(last.text)\(last.stderr)")
            #expect(last.text.split(separator: "\n").count == 3, "\(last.text)")
            let fourthExit = await fourth.stop()
            #expect(fourthExit == .exited(0), "cofferd \(fourthExit); log:\n\(fourth.log())")
        }
    }
}

/// strace attached to a running cofferd, killing it (SIGKILL, as `kill -9`) when one of its threads enters one of
/// `calls` on one of `paths`.
struct SyscallKiller {
    /// strace's exit status, once it ended.
    let ended: AsyncStream<Int32>

    /// Returns once strace has attached to every thread cofferd has (it says so on its standard error, after
    /// attaching them all: "Process N attached with T threads").
    static func attach(to pid: Int32, calls: [String], paths: [String], log directory: URL) async throws
        -> SyscallKiller {
        let errors = directory.appendingPathComponent("strace-\(pid).err")
        try Data().write(to: errors)
        let events = try FileEvents(errors.path, mask: UInt32(IN_MODIFY))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/strace")
        let set = calls.joined(separator: ",")
        process.arguments = ["-f", "-p", "\(pid)", "-o", "/dev/null", "-e", "trace=\(set)",
                             "-e", "inject=\(set):signal=KILL"] + paths.flatMap { ["-P", $0] }
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardOutput = FileHandle.nullDevice
        let (ended, end) = AsyncStream.makeStream(of: Int32.self)
        process.terminationHandler = {
            end.yield($0.terminationStatus)
            end.finish()
        }
        try process.run()
        let path = errors.path
        let attached = "Process \(pid) attached"
        // strace says why it cannot attach (tracing a process that is not its child takes root or ptrace_scope 0).
        try await events.wait(until: {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            return text.contains(attached) || text.contains("ptrace(")
        }, limit: .seconds(30), what: "strace attached to cofferd")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        guard text.contains(attached) else { throw DaemonHarness.StartError("strace: \(text)") }
        return SyscallKiller(ended: ended)
    }

    /// Waits for strace to end (its tracee is gone).
    func finish() async throws {
        let ended = ended
        _ = try await withDeadline(.seconds(30), waitingFor: "strace to end") {
            for await status in ended { return status }
            return -1
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// A PAM service file in /etc/pam.d that stacks the built pam_coffer.so, and pamtester runs against it.

import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SecretServiceTestSupport

/// A uniquely named PAM service for one test, removed again by ``remove()``.
///
/// The stack stands in for a real one: `pam_permit` decides (a test must not depend on the machine's passwords),
/// pam_coffer then asks for the password through the conversation (pamtester answers from standard input), and
/// `pam_env` puts the runtime directory, the bus and the home into PAM's environment for the session, as
/// pam_systemd and the login manager do.
struct PAMService {
    let name: String
    let file: URL
    private let environmentFile: URL

    /// The module the Makefile builds (`make pam-module`), found above this file.
    static func modulePath(filePath: String = #filePath) throws -> String {
        var directory = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent(".build/pam/pam_coffer.so")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate.path }
            directory.deleteLastPathComponent()
        }
        throw DaemonHarness.StartError("pam_coffer.so is not built: run `make pam-module`")
    }

    /// Writes `/etc/pam.d/coffer-test-<uuid>` and the environment file it reads.
    /// - Parameters:
    ///   - environment: the variables the session's PAM environment gets (XDG_RUNTIME_DIR at least).
    ///   - options: extra pam_coffer options (for example `cofferd=/path`).
    ///   - scratch: where the environment file goes.
    init(environment: [String: String], options: [String] = [], scratch: URL) throws {
        let module = try Self.modulePath()
        name = "coffer-test-\(UUID().uuidString.lowercased())"
        file = URL(fileURLWithPath: "/etc/pam.d/\(name)")
        environmentFile = scratch.appendingPathComponent("\(name).env")
        try environment.sorted { $0.key < $1.key }.map { "\($0.key) DEFAULT=\($0.value)\n" }.joined()
            .write(to: environmentFile, atomically: true, encoding: .utf8)
        let coffer = ([module] + options).joined(separator: " ")
        let stack = """
            auth     required pam_permit.so
            auth     optional \(coffer)
            session  required pam_env.so readenv=0 user_readenv=0 conffile=\(environmentFile.path)
            session  optional \(coffer)
            password required pam_permit.so
            password optional \(coffer)

            """
        try stack.write(to: file, atomically: true, encoding: .utf8)
    }

    func remove() {
        try? FileManager.default.removeItem(at: file)
        try? FileManager.default.removeItem(at: environmentFile)
    }

    /// Runs `pamtester <service> <user> <operations…>`, answering its prompts with `answers`, one per line.
    func run(_ operations: [String], answers: [String], user: String = "root", in environment: ClientEnvironment)
        async throws -> ClientOutput {
        TestLogArchive.register(answers)
        return try await environment.run("/usr/bin/pamtester", [name, user] + operations,
                                         input: Data(answers.map { $0 + "\n" }.joined().utf8))
    }

    /// Logs in: `authenticate` (pam_coffer keeps the password) then `open_session` (it hands it to cofferd).
    func logIn(password: String, user: String = "root", in environment: ClientEnvironment) async throws
        -> ClientOutput {
        try await run(["authenticate", "open_session"], answers: [password], user: user, in: environment)
    }

    /// Changes the password: `open_session` only sets up the PAM environment; `chauthtok` asks the current
    /// password, then the new one twice.
    func changePassword(from old: String, to new: String, user: String = "root", in environment: ClientEnvironment)
        async throws -> ClientOutput {
        try await run(["open_session", "chauthtok"], answers: [old, new, new], user: user, in: environment)
    }

    /// ``changePassword(from:to:user:in:)`` run by `user` itself rather than root, as `passwd` is (it is setuid
    /// root, but its real user is the one changing their password).
    func changePassword(from old: String, to new: String, runAs user: TemporaryUser, in environment: ClientEnvironment)
        async throws -> ClientOutput {
        TestLogArchive.register([old, new])
        return try await environment.run(
            "/usr/bin/setpriv", ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", "/usr/bin/pamtester",
                                 name, user.name, "open_session", "chauthtok"],
            input: Data("\(old)\n\(new)\n\(new)\n".utf8))
    }
}

/// A system user made for one test with `useradd` (no home, no login shell), removed by ``remove()``.
struct TemporaryUser {
    let name: String
    let uid: uid_t
    let gid: gid_t

    init() async throws {
        name = "cofferpam" + UUID().uuidString.lowercased().prefix(8)
        let added = try await Self.run("/usr/sbin/useradd",
                                       ["--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin",
                                        name])
        guard added == 0, let entry = getpwnam(name) else {
            throw DaemonHarness.StartError("useradd \(name) exited \(added)")
        }
        uid = entry.pointee.pw_uid
        gid = entry.pointee.pw_gid
    }

    /// Deletes the user (and its group).
    func remove() async {
        _ = try? await Self.run("/usr/sbin/userdel", [name])
    }

    /// Runs a system tool to its end; its output goes to the test's.
    private static func run(_ executable: String, _ arguments: [String]) async throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        return try await process.runToEnd()
    }

    /// Creates `directory` (and its parents) as this user's, mode 0700.
    func makeDirectory(_ directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard chown(directory.path, uid, gid) == 0, chmod(directory.path, 0o700) == 0 else {
            throw DaemonHarness.StartError("cannot hand \(directory.path) to \(name)")
        }
    }
}

extension TestBus {
    /// The runtime directory the harness gives cofferd (`XDG_RUNTIME_DIR`), where its login channel listens.
    var cofferdRuntimeDirectory: String { directory.appendingPathComponent("runtime").path }
}

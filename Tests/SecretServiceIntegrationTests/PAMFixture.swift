// SPDX-License-Identifier: Apache-2.0
// A PAM service file in /etc/pam.d that stacks the built pam_coffer.so, and pamtester runs against it.

import Foundation
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

    /// Runs `pamtester <service> root <operations…>`, answering its prompts with `answers`, one per line.
    func run(_ operations: [String], answers: [String], in environment: ClientEnvironment) async throws
        -> ClientOutput {
        TestLogArchive.register(answers)
        return try await environment.run("/usr/bin/pamtester", [name, "root"] + operations,
                                         input: Data(answers.map { $0 + "\n" }.joined().utf8))
    }

    /// Logs in: `authenticate` (pam_coffer keeps the password) then `open_session` (it hands it to cofferd).
    func logIn(password: String, in environment: ClientEnvironment) async throws -> ClientOutput {
        try await run(["authenticate", "open_session"], answers: [password], in: environment)
    }

    /// Changes the password: `open_session` only sets up the PAM environment; `chauthtok` asks the current
    /// password, then the new one twice.
    func changePassword(from old: String, to new: String, in environment: ClientEnvironment) async throws
        -> ClientOutput {
        try await run(["open_session", "chauthtok"], answers: [old, new, new], in: environment)
    }
}

extension TestBus {
    /// The runtime directory the harness gives cofferd (`XDG_RUNTIME_DIR`), where its login channel listens.
    var cofferdRuntimeDirectory: String { directory.appendingPathComponent("runtime").path }
}

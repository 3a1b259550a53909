// SPDX-License-Identifier: Apache-2.0
// The access prompt's second question: after "Always allow", this secret (or group) only, or the whole keyring.

import DBusWire
import Foundation
@testable import SecretServiceDaemon
import Testing

@Suite("Access prompt: the reach of \"Always allow\"")
struct ConsentReachTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/pinentry-script").path

    /// Asks one access question of the scripted pinentry answering `confirms`; the answer and the commands it got.
    static func ask(_ confirms: [String], group: String? = nil, keepsAnswer: Bool = true) async throws
        -> (AccessAnswer, [String]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-consent-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = PinentryPrompter.Configuration(program: script, environment: [
            "PATH": "/usr/bin:/bin",
            "COFFER_TEST_PINENTRY_CONFIRMS": confirms.joined(separator: ","),
            "COFFER_TEST_PINENTRY_CONFIRM_STATE": directory.appendingPathComponent("state").path,
            "COFFER_TEST_PINENTRY_LOG": directory.appendingPathComponent("log").path,
        ], timeout: .seconds(60))
        configuration.ttyName = nil
        let access = AccessRequest(application: "/usr/bin/b", processID: 7, commandLine: "b --go",
                                   itemLabel: "Mail", collectionLabel: "Login", unowned: false, accessGroup: group,
                                   keepsAnswer: keepsAnswer)
        let answer = await PinentryPrompter(configuration: configuration)
            .consent(PromptRequest(kind: .access(access), windowID: "", caller: BusName(unchecked: ":1.9")))
        let log = (try? String(contentsOf: directory.appendingPathComponent("log"), encoding: .utf8)) ?? ""
        return (answer, log.split(separator: "\n").map(String.init))
    }

    @Test("Always allow, then: Whole keyring, Only this secret, or Deny; Allow once asks nothing more")
    func answers() async throws {
        let (whole, commands) = try await Self.ask(["NOTOK", "NOTOK"])
        #expect(whole == .alwaysAllowCollection)
        #expect(commands.count { $0 == "CONFIRM" } == 2)
        #expect(commands.contains("SETOK Only this secret") && commands.contains("SETNOTOK Whole keyring"))
        #expect(commands.contains { $0.hasPrefix("SETDESC Always allow the application /usr/bin/b to use the secret") })
        #expect(try await Self.ask(["NOTOK", "OK"]).0 == .alwaysAllow)
        #expect(try await Self.ask(["NOTOK", "CANCEL"]).0 == .deny)
        let (once, onceCommands) = try await Self.ask(["OK"])
        #expect(once == .allowOnce && onceCommands.count { $0 == "CONFIRM" } == 1)
    }

    @Test("an access group's item offers the group; a question about one action has no second question")
    func groupAndOneAction() async throws {
        let (group, commands) = try await Self.ask(["NOTOK", "OK"], group: "TEAM.shared")
        #expect(group == .alwaysAllow && commands.contains("SETOK Only this group"), "\(commands)")
        let (deletion, deletionCommands) = try await Self.ask(["NOTOK"], keepsAnswer: false)
        #expect(deletion == .alwaysAllow && deletionCommands.count { $0 == "CONFIRM" } == 1, "\(deletionCommands)")
    }
}

// SPDX-License-Identifier: Apache-2.0
// Keychain access groups under access control: "Always allow" for an item of a group allows the whole group.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("Access control: Keychain access groups")
struct AccessGroupTests {
    /// `store NAME VALUE GROUP` stores an item as the Keychain library files one in access group GROUP (its
    /// `keychain:agrp` attribute); `read NAME` and `unlock NAME` as in ``AccessManagementTests/program``.
    static let program = AccessManagementTests.program.replacingOccurrences(
        of: "col.create_item('label of ' + name, {'name': name}, sys.argv[3].encode(), replace=True)",
        with: "col.create_item('label of ' + name, {'name': name, 'keychain:agrp': sys.argv[4]}, "
            + "sys.argv[3].encode(), replace=True)")

    static func application(_ name: String, _ env: ClientEnvironment) throws
        -> @Sendable ([String]) async throws -> String {
        try AccessManagementTests.application(name, env, program: program)
    }

    @Test("one question per access group: always allowing one item of a group allows its other items, not another group's")
    func oneQuestionPerGroup() async throws {
        #expect(Self.program != AccessManagementTests.program, "the store line to rewrite was not found")
        try await TestBus.withPrivateBus { bus in
            var options = DaemonHarness.SubprocessOptions(arguments: ["--access-control", "ask"])
            options.pinentryConfirms = ["NOTOK", "OK", "CANCEL"]
            let daemon = try await DaemonHarness.start(on: bus, options: options)
            let env = ClientEnvironment(bus: bus)
            let coffer = CofferCLI(bus: bus)
            let a = try Self.application("a", env)
            let b = try Self.application("b", env)
            #expect(try await a(["store", "one", "first of G", "TEAM.com.example.shared"]) == "stored")
            #expect(try await a(["store", "two", "second of G", "TEAM.com.example.shared"]) == "stored")
            #expect(try await a(["store", "other", "of H", "TEAM.com.example.private"]) == "stored")

            // "Always allow" for one item of the group (the prompt says it covers the group).
            #expect(try await b(["unlock", "one"]) == "first of G")
            let description = daemon.pinentryCommands.first { $0.hasPrefix("SETDESC ") } ?? ""
            #expect(description.contains("TEAM.com.example.shared"), "\(daemon.pinentryCommands)")
            // The group's other item is B's to read without a question; another group's is not.
            #expect(try await b(["read", "two"]) == "second of G")
            #expect(try await b(["read", "other"]) == "locked")
            #expect(try await b(["unlock", "other"]) == "denied")
            #expect(daemon.pinentryCommands.count { $0 == "CONFIRM" } == 3, "\(daemon.pinentryCommands)")

            // `coffer access list` shows the group's grant; revoking the application takes it back.
            let (listed, json) = try await coffer.json(["access", "list"])
            #expect(listed.status == 0, "\(listed.stderr)")
            let entries = try #require(json as? [[String: Any]])
            let grant = try #require(entries.first { $0["group"] as? String == "TEAM.com.example.shared" },
                                     "\(entries)")
            let identity = try #require((grant["allowed"] as? [String])?.first)
            #expect(identity.contains("/b/app.py"))
            #expect(try await coffer.run(["access", "revoke", identity]).status == 0)
            #expect(try await b(["read", "two"]) == "locked")
            let exit = await daemon.stop()
            #expect(exit == .exited(0), "cofferd \(exit); log:\n\(daemon.log())")
        }
    }
}

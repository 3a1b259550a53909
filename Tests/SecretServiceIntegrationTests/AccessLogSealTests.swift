// SPDX-License-Identifier: Apache-2.0
// The sealed access log against a real cofferd: what `coffer access log` shows of locked keyrings and of a log
// changed from outside.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("Access log: sealed per keyring")
struct AccessLogSealTests {
    @Test("a changed byte of the log file is reported by `coffer access log` (status 1); a locked keyring's entries are counted, not shown")
    func tamperingAndLocked() async throws {
        try await TestBus.withPrivateBus { bus in
            let daemon = try await DaemonHarness.start(on: bus, options: AccessManagementTests.options(["OK"]))
            let env = ClientEnvironment(bus: bus)
            let coffer = CofferCLI(bus: bus)
            let a = try AccessManagementTests.application("a", env)
            let b = try AccessManagementTests.application("b", env)
            #expect(try await a(["store", "mail", "the mail secret"]) == "stored")
            #expect(try await b(["unlock", "mail"]) == "the mail secret")
            let intact = try await coffer.run(["access", "log"])
            #expect(intact.status == 0 && intact.stderr.isEmpty, "\(intact.text)\(intact.stderr)")
            #expect(intact.text.contains("allowed-once") && intact.text.contains("/b/app.py"), "\(intact.text)")

            // Locked: the entries are there, but not for reading.
            let lock = try await coffer.run(["lock-keychain", "login"])
            #expect(lock.status == 0, "\(lock.stderr)")
            let (locked, shown) = try await coffer.json(["access", "log", "--json"])
            #expect(locked.status == 0 && (shown as? [Any])?.isEmpty == true, "\(locked.text)\(locked.stderr)")
            #expect(locked.stderr.contains("entries belong to locked keyrings"), "\(locked.stderr)")
            let exit = await daemon.stop()
            #expect(exit == .exited(0), "cofferd \(exit); log:\n\(daemon.log())")

            // One byte changed in the middle of the file while cofferd was stopped.
            let file = daemon.dataDirectory.appendingPathComponent("access.log")
            var bytes = try Data(contentsOf: file)
            bytes[bytes.count / 2] ^= 0x20
            try bytes.write(to: file)
            let second = try await DaemonHarness.start(on: bus,
                                                       options: AccessManagementTests.options([], name: "second"))
            #expect(try await a(["read", "mail"]) == "the mail secret")
            let damaged = try await coffer.run(["access", "log"])
            #expect(damaged.status == 1, "\(damaged.text)\(damaged.stderr)")
            #expect(damaged.stderr.contains("access log: access.log: record"), "\(damaged.stderr)")
            #expect(damaged.stderr.contains("tampered with"), "\(damaged.stderr)")
            let secondExit = await second.stop()
            #expect(secondExit == .exited(0), "cofferd \(secondExit); log:\n\(second.log())")
        }
    }

    @Test("after a restart, a password change that replaces a keyring's master key keeps its older entries readable")
    func passwordChangeAfterRestart() async throws {
        try await TestBus.withPrivateBus { bus in
            // A new cofferd has sealed nothing with the old key when the password changes.
            let (second, _) = try await AccessManagementTests.workWithTwoLoggedUses(on: bus)
            let coffer = CofferCLI(bus: bus)
            let change = try await coffer.run(["set-keychain-password", "work"],
                                              input: "old password\nnew password\n")
            #expect(change.status == 0 && change.stderr.isEmpty, "\(change.stderr)")
            _ = await second.stop()

            let third = try await DaemonHarness.start(on: bus,
                                                      options: AccessManagementTests.options([], name: "third"))
            #expect(try await coffer.run(["unlock-keychain", "work"], input: "new password\n").status == 0)
            let after = try await coffer.run(["access", "log", "--collection", "work"])
            #expect(after.status == 0 && after.stderr.isEmpty, "\(after.text)\(after.stderr)")
            #expect(after.text.split(separator: "\n").count == 2, "\(after.text)")
            let exit = await third.stop()
            #expect(exit == .exited(0), "cofferd \(exit); log:\n\(third.log())")
        }
    }
}

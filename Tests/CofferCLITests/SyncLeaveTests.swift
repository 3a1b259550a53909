// SPDX-License-Identifier: Apache-2.0
// Two cofferd instances sharing a collection: a password change on one reaches the folder, the other leaves the
// collection (keeping its items) and joins again with the new password.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("Leaving a synchronized collection, and password changes reaching the folder", .timeLimit(.minutes(3)))
struct SyncLeaveTests {
    @Test("a password change rewrites the wrap; a joined machine keeps its own password; leave keeps the items and stops writing; joining again needs the new password and gets a new device id")
    func passwordChangeLeaveAndRejoin() async throws {
        try await TestBus.withPrivateBus { firstBus in
            try await TestBus.withPrivateBus { secondBus in
                try await Self.run(firstBus, secondBus)
            }
        }
    }

    static func run(_ firstBus: TestBus, _ secondBus: TestBus) async throws {
        let options = DaemonHarness.SubprocessOptions(arguments: DaemonHarness.cheapKeyDerivation)
        let first = try await DaemonHarness.start(on: firstBus, options: options)
        let second = try await DaemonHarness.start(on: secondBus, options: options)
        let firstFolder = firstBus.directory.appendingPathComponent("Sync").path
        let secondFolder = secondBus.directory.appendingPathComponent("Sync").path
        let oldPassword = DaemonHarness.testLoginPassword, newPassword = "a new password"
        do {
            for folder in [firstFolder, secondFolder] {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            }
            let firstCoffer = CofferCLI(bus: firstBus), secondCoffer = CofferCLI(bus: secondBus)
            let firstClients = ClientEnvironment(bus: firstBus), secondClients = ClientEnvironment(bus: secondBus)
            let (enabled, enabledJSON) = try await firstCoffer.json(
                ["sync", "enable", "--collection", "login", firstFolder, "--json"], input: oldPassword + "\n")
            #expect(enabled.status == 0, "\(enabled.stderr)")
            let firstDevice = try #require((enabledJSON as? [String: String])?["device"])
            let syncCollection = try #require((enabledJSON as? [String: String])?["collection"])
            #expect(try await firstClients.secretTool(["store", "--label=Mail", "service", "imap", "user", "alice"],
                                                      input: Data("hunter2".utf8)).status == 0)
            try SyncTwoMachinesTests.carry(firstFolder, to: secondFolder, own: nil)
            let (joined, joinedJSON) = try await secondCoffer.json(["sync", "join", secondFolder, "--label", "Shared",
                                                                    "--json"], input: oldPassword + "\n")
            #expect(joined.status == 0, "\(joined.stderr)")
            let shared = try #require((joinedJSON as? [String: String])?["keychain"])
            let secondDevice = try #require((joinedJSON as? [String: String])?["device"])
            let sharedPath = "/org/freedesktop/secrets/collection/\(shared)"
            #expect(try await secondClients.secretTool(["store", "--label=Bob", "--collection=\(sharedPath)",
                                                        "service", "imap", "user", "bob"],
                                                       input: Data("b0b".utf8)).status == 0)

            // The first machine's password changes: its wrap in the folder is made anew, with a later clock.
            let wrap = "\(firstFolder)/\(syncCollection)/\(firstDevice).wrap"
            let before = try Data(contentsOf: URL(fileURLWithPath: wrap))
            let changed = try await firstCoffer.run(["set-keychain-password", "login"],
                                                    input: oldPassword + "\n" + newPassword + "\n")
            #expect(changed.status == 0, "\(changed.stderr)")
            let after = try Data(contentsOf: URL(fileURLWithPath: wrap))
            #expect(after.count == before.count && after != before)
            #expect(!FileManager.default.fileExists(atPath: wrap + ".tmp"))
            try SyncTwoMachinesTests.carry(firstFolder, to: secondFolder, own: secondDevice)

            // The joined machine keeps its own key slot: the old password still unlocks its collection.
            #expect(try await secondCoffer.run(["lock-keychain", shared]).status == 0)
            let unlocked = try await secondCoffer.run(["unlock-keychain", shared], input: oldPassword + "\n")
            #expect(unlocked.status == 0, "\(unlocked.stderr)")

            // Leaving: the items stay, the sync state goes, the journal stays in the folder and stops growing.
            let journal = "\(secondFolder)/\(syncCollection)/\(secondDevice).journal"
            let journalBytes = try Data(contentsOf: URL(fileURLWithPath: journal))
            let (left, leftJSON) = try await secondCoffer.json(["sync", "leave", "--collection", shared, "--json"])
            #expect(left.status == 0, "\(left.stderr)")
            #expect((leftJSON as? [String: String])?["device"] == secondDevice)
            #expect((leftJSON as? [String: String])?["collection"] == syncCollection)
            let state = second.dataDirectory.appendingPathComponent("sync/\(shared).state").path
            #expect(!FileManager.default.fileExists(atPath: state))
            #expect(try await SyncTwoMachinesTests.lookup(secondClients, "bob") == "b0b")
            #expect(try await secondClients.secretTool(["store", "--label=Dave", "--collection=\(sharedPath)",
                                                        "service", "imap", "user", "dave"],
                                                       input: Data("d4v3".utf8)).status == 0)
            #expect(try Data(contentsOf: URL(fileURLWithPath: journal)) == journalBytes)
            #expect(try await secondCoffer.run(["sync", "leave", "--collection", shared]).status == 64)

            // Joining again: the old password opens no wrap now, the new one does; a new device id, every item.
            #expect(try await secondCoffer.run(["sync", "join", secondFolder], input: oldPassword + "\n").status == 51)
            let (rejoined, rejoinedJSON) = try await secondCoffer.json(
                ["sync", "join", secondFolder, "--label", "Rejoined", "--json"], input: newPassword + "\n")
            #expect(rejoined.status == 0, "\(rejoined.stderr)")
            let again = try #require((rejoinedJSON as? [String: String])?["keychain"])
            #expect((rejoinedJSON as? [String: String])?["device"] != secondDevice)
            #expect(try await keychains(secondCoffer)[again]?["items"] as? Int == 2,
                    "alice, and bob from the old journal")

            // The collection that left can be synchronized anew: every item it holds goes to the new journal, also
            // those merged from the first machine before.
            let elsewhere = secondBus.directory.appendingPathComponent("Elsewhere").path
            try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
            let reenabled = try await secondCoffer.run(["sync", "enable", "--collection", shared, elsewhere],
                                                       input: oldPassword + "\n")
            #expect(reenabled.status == 0, "\(reenabled.stderr)")
            let (status, report) = try await secondCoffer.json(["sync", "status", elsewhere, "--verify", "--json"],
                                                               input: oldPassword + "\n")
            #expect(status.status == 0, "\(status.stderr)")
            let collection = ((report as? [String: Any])?["collections"] as? [[String: Any]])?.first
            #expect(collection?["items"] as? Int == 3, "alice, bob and dave")

            // A synchronized collection whose folder went missing is an error in doctor, with what to do.
            try FileManager.default.moveItem(atPath: firstFolder, toPath: firstFolder + ".away")
            let doctor = try await firstCoffer.run(["doctor", "--json"])
            #expect(doctor.status == 1)
            let findings = try JSONSerialization.jsonObject(with: doctor.stdout) as? [[String: Any]] ?? []
            let missing = findings.first { ($0["message"] as? String)?.contains("which is missing") == true }
            #expect(missing?["check"] as? String == "sync" && missing?["severity"] as? String == "error", "\(findings)")
            #expect((missing?["fix"] as? String)?.contains("coffer sync leave --collection login") == true)
            try FileManager.default.moveItem(atPath: firstFolder + ".away", toPath: firstFolder)
        } catch {
            Issue.record("first cofferd's log:\n\(first.log())\nsecond cofferd's log:\n\(second.log())")
            await first.kill()
            await second.kill()
            throw error
        }
        #expect(await first.stop() == .exited(0), "log:\n\(first.log())")
        #expect(await second.stop() == .exited(0), "log:\n\(second.log())")
    }
}

// SPDX-License-Identifier: Apache-2.0
// Two cofferd instances, each on its own bus with its own HOME, share a collection through two folders that the
// test keeps in step by copying files, as a sync engine would.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("Synchronized collections between two cofferd instances", .timeLimit(.minutes(3)))
struct SyncTwoMachinesTests {
    /// Copies the files of `from`'s collection directories into `to`, except those of `own` (the destination's
    /// device: an engine never brings an older copy of them back), written beside and renamed into place as
    /// Syncthing does; `short` leaves the last bytes of each journal out (a transfer under way), `alter` flips one
    /// byte that many bytes before the end of each journal (someone who can write the folder).
    static func carry(_ from: String, to: String, own: String?, short: Int? = nil, alter: Int? = nil) throws {
        let manager = FileManager.default
        for collection in try manager.contentsOfDirectory(atPath: from) {
            let source = from + "/" + collection, target = to + "/" + collection
            try manager.createDirectory(atPath: target, withIntermediateDirectories: true)
            for name in try manager.contentsOfDirectory(atPath: source) where own.map({ !name.hasPrefix($0) }) ?? true {
                var bytes = try Data(contentsOf: URL(fileURLWithPath: source + "/" + name))
                if name.hasSuffix(".journal") {
                    if let short { bytes = bytes.prefix(bytes.count - short) }
                    if let alter { bytes[bytes.count - alter] ^= 0x01 }
                }
                let temporary = target + "/.syncthing." + name + ".tmp"
                try bytes.write(to: URL(fileURLWithPath: temporary))
                #expect(rename(temporary, target + "/" + name) == 0)
            }
        }
    }

    static func lookup(_ clients: ClientEnvironment, _ user: String) async throws -> String {
        let found = try await clients.secretTool(["lookup", "service", "imap", "user", user])
        return String(decoding: found.stdout, as: UTF8.self)
    }

    @Test("a secret stored with secret-tool on one machine is returned on the other; a delete follows; a half-copied journal waits; a tampered one is set aside, changes nothing and is reported by doctor")
    func twoMachines() async throws {
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
        let password = DaemonHarness.testLoginPassword + "\n"
        do {
            for folder in [firstFolder, secondFolder] {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            }
            let firstClients = ClientEnvironment(bus: firstBus), secondClients = ClientEnvironment(bus: secondBus)
            let (enabled, enabledJSON) = try await CofferCLI(bus: firstBus).json(
                ["sync", "enable", "--collection", "login", firstFolder, "--json"], input: password)
            #expect(enabled.status == 0, "\(enabled.stderr)")
            let firstDevice = try #require((enabledJSON as? [String: String])?["device"])
            let stored = try await firstClients.secretTool(["store", "--label=Mail", "service", "imap", "user", "alice"],
                                                           input: Data("hunter2".utf8))
            #expect(stored.status == 0, "\(stored.stderr)")
            try carry(firstFolder, to: secondFolder, own: nil)

            // Joining asks the password once and brings every item.
            let secondCoffer = CofferCLI(bus: secondBus)
            #expect(try await secondCoffer.run(["sync", "join", secondFolder], input: "wrong\n").status == 51)
            let (joined, joinedJSON) = try await secondCoffer.json(["sync", "join", secondFolder, "--label", "Shared",
                                                                    "--json"], input: password)
            #expect(joined.status == 0, "\(joined.stderr)")
            let secondDevice = try #require((joinedJSON as? [String: String])?["device"])
            let shared = "/org/freedesktop/secrets/collection/" + (try #require((joinedJSON as? [String: String])?["keychain"]))
            #expect(try await lookup(secondClients, "alice") == "hunter2")

            // A secret stored on the second machine reaches the first once the file has arrived whole.
            let bob = try await secondClients.secretTool(["store", "--label=Bob", "--collection=\(shared)", "service",
                                                          "imap", "user", "bob"],
                                                         input: Data("b0b".utf8))
            #expect(bob.status == 0, "\(bob.stderr)")
            try carry(secondFolder, to: firstFolder, own: firstDevice, short: 9)
            try await first.waitForLog(containing: "sync.device=\(secondDevice) sync.through=1")
            #expect(try await lookup(firstClients, "bob") == "")
            try carry(secondFolder, to: firstFolder, own: firstDevice)
            try await first.waitForLog(containing: "sync.device=\(secondDevice) sync.through=2")
            #expect(try await lookup(firstClients, "bob") == "b0b")
            #expect(!first.log().contains("set aside"), "a half-copied journal is no damage")

            // A delete on the first machine follows.
            #expect(try await firstClients.secretTool(["clear", "service", "imap", "user", "alice"]).status == 0)
            try carry(firstFolder, to: secondFolder, own: secondDevice)
            try await second.waitForLog(containing: "sync.device=\(firstDevice) sync.through=3")
            #expect(try await lookup(secondClients, "alice") == "")

            // A tampered journal is set aside: what it adds never arrives, and nothing changes on the second machine.
            let carol = try await firstClients.secretTool(["store", "--label=Carol", "service", "imap", "user", "carol"],
                                                          input: Data("c4r0l".utf8))
            #expect(carol.status == 0, "\(carol.stderr)")
            try carry(firstFolder, to: secondFolder, own: secondDevice, alter: 40)
            try await second.waitForLog(containing: "set aside")
            #expect(try await lookup(secondClients, "carol") == "")
            #expect(try await lookup(secondClients, "bob") == "b0b")

            // coffer sync status shows it, also once a whole copy arrives: nothing more of that journal is taken.
            try carry(firstFolder, to: secondFolder, own: secondDevice)
            let (status, report) = try await secondCoffer.json(["sync", "status", secondFolder, "--daemon", "--json"])
            #expect(status.status == 0, "\(status.stderr)")
            let collection = try #require(((report as? [String: Any])?["collections"] as? [[String: Any]])?.first)
            #expect(collection["keychain"] as? String == shared.split(separator: "/").last.map(String.init))
            let devices = try #require(collection["devices"] as? [[String: Any]])
            let tampered = devices.first { $0["id"] as? String == firstDevice }
            #expect((tampered?["setAsideByCofferd"] as? String)?.isEmpty == false, "\(devices)")
            #expect(devices.first { $0["id"] as? String == secondDevice }?["setAsideByCofferd"] == nil)
            #expect(try await lookup(secondClients, "carol") == "")

            // coffer doctor reports it from the data directory: which device, why, what to do; it is an error.
            let doctor = try await secondCoffer.run(["doctor", "--json"])
            #expect(doctor.status == 1)
            let findings = try #require(try JSONSerialization.jsonObject(with: doctor.stdout) as? [[String: Any]])
            let finding = findings.first { ($0["message"] as? String)?.contains("device \(firstDevice)") == true }
            #expect(finding?["check"] as? String == "sync" && finding?["severity"] as? String == "error", "\(findings)")
            #expect((finding?["message"] as? String)?.contains("is set aside: record ") == true, "\(findings)")
            #expect((finding?["fix"] as? String)?.contains("coffer sync join \(secondFolder)") == true)
            #expect(findings.contains { $0["check"] as? String == "sync" && $0["severity"] as? String == "ok" })
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

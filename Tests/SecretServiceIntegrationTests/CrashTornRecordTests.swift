// SPDX-License-Identifier: Apache-2.0
// The file a kill leaves in the middle of an append: a torn last record is dropped, a cut acknowledged one refused.

import DBusWire
import Foundation
import SecretServiceClient
import SecretServiceTestSupport
import Testing

@Suite("Crash: torn records", .timeLimit(.minutes(2)))
struct CrashTornRecordTests {
    /// The login file and `generations` after item "a" was acknowledged, and the login file after item "b" was.
    private struct Snapshots {
        var generationsAfterA: Data
        var sizeAfterA: Int
        var loginAfterB: Data
    }

    private func writeTwoItems(_ daemons: DaemonSequence) async throws -> Snapshots {
        _ = try await daemons.start(DaemonSequence.options("writer"))
        let generations = daemons.dataDirectory.appendingPathComponent("generations")
        let snapshots = try await withClient(on: daemons.bus) { client in
            _ = try await client.createItem(in: DaemonSequence.loginPath, label: "a", attributes: ["torn": "a"],
                                            secret: secret("first"), replace: false)
            // Each acknowledged write is on disk, the generation recorded, before the reply.
            let afterA = (try Data(contentsOf: generations), try daemons.fileBytes("login").count)
            _ = try await client.createItem(in: DaemonSequence.loginPath, label: "b", attributes: ["torn": "b"],
                                            secret: secret(String(repeating: "b", count: 4096)), replace: false)
            return Snapshots(generationsAfterA: afterA.0, sizeAfterA: afterA.1,
                             loginAfterB: try daemons.fileBytes("login"))
        }
        await daemons.stop()
        return snapshots
    }

    /// Where to cut item "b"'s record: inside its length prefix, or halfway through it.
    enum Cut: String, CaseIterable, Sendable { case inLength, halfway }

    private func cutLength(_ cut: Cut, _ snapshots: Snapshots) -> Int {
        switch cut {
        case .inLength: snapshots.sizeAfterA + 2
        case .halfway: snapshots.sizeAfterA + (snapshots.loginAfterB.count - snapshots.sizeAfterA) / 2
        }
    }

    private func items(_ client: SecretService) async throws -> [String: String] {
        var found: [String: String] = [:]
        for name in ["a", "b", "c"] {
            let hit = try await client.searchItems(["torn": name])
            #expect(hit.locked.isEmpty && hit.unlocked.count <= 1, "\(name): \(hit)")
            if let item = hit.unlocked.first { found[name] = try await client.secret(of: item).text }
        }
        return found
    }

    @Test("a record torn before its generation was recorded is ignored, then cut off by the next write",
          arguments: Cut.allCases)
    func tornUnacknowledgedRecord(cut: Cut) async throws {
        try await withDaemonSequence { daemons in
            let snapshots = try await writeTwoItems(daemons)
            // What a kill during the append of "b" leaves: part of its record, and "a"'s generation.
            try snapshots.loginAfterB.prefix(cutLength(cut, snapshots)).write(to: daemons.collectionFile("login"))
            try snapshots.generationsAfterA.write(to: daemons.dataDirectory.appendingPathComponent("generations"))

            let reopened = try await daemons.start(DaemonSequence.options("after-crash"))
            try await withClient(on: daemons.bus) { client in
                #expect(try await items(client) == ["a": "first"])
                _ = try await client.createItem(in: DaemonSequence.loginPath, label: "c", attributes: ["torn": "c"],
                                                secret: secret("third"), replace: false)
            }
            // Read after calls on login, which wait for the start-up unlock and any line it writes.
            #expect(!reopened.log().contains("unavailable"), "log:\n\(reopened.log())")
            await daemons.stop()

            let again = try await daemons.start(DaemonSequence.options("after-next-write"))
            try await withClient(on: daemons.bus) { (client) async throws in
                #expect(try await items(client) == ["a": "first", "c": "third"])
            }
            #expect(!again.log().contains("unavailable"), "log:\n\(again.log())")
            await daemons.stop()
        }
    }

    @Test("an acknowledged record cut off (its generation recorded) makes the collection unavailable; the file is kept",
          arguments: Cut.allCases)
    func cutAcknowledgedRecord(cut: Cut) async throws {
        try await withDaemonSequence { daemons in
            let snapshots = try await writeTwoItems(daemons)
            let truncated = snapshots.loginAfterB.prefix(cutLength(cut, snapshots))
            try truncated.write(to: daemons.collectionFile("login"))

            let daemon = try await daemons.start(DaemonSequence.options("cut"))
            let log = daemon.log()
            #expect(log.contains(daemons.collectionFile("login").path), "the log does not name the file:\n\(log)")
            #expect(log.contains("cut short"), "the log gives no reason:\n\(log)")
            try await withClient(on: daemons.bus) { (client) async throws in
                #expect(await failsWithNoSuchObject {
                    _ = try await client.collectionProperties(DaemonSequence.loginPath)
                })
            }
            await daemons.stop()
            #expect(try daemons.fileBytes("login") == truncated, "the cut file was changed")
        }
    }
}

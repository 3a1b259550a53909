// SPDX-License-Identifier: Apache-2.0
// Compaction rewrites a collection file; the write that triggered it must be in the rewritten file too.

import DBusWire
import Foundation
import SecretServiceClient
import SecretServiceTestSupport
import Testing

@Suite("PersistenceIntegration: compaction", .timeLimit(.minutes(2)))
struct PersistenceIntegrationCompactionTests {
    /// Which kind of write ends up triggering the compaction.
    enum Trigger: String, CaseIterable, Sendable { case update, delete }

    @Test("the write that triggers a compaction is kept across a restart", arguments: Trigger.allCases)
    func triggeringWriteSurvives(trigger: Trigger) async throws {
        try await withDaemonSequence { daemons in
            _ = try await daemons.start(DaemonSequence.options("compacting"))
            let login = DaemonSequence.loginPath
            let expected: (present: [String: String], absent: [String])
            expected = try await withClient(on: daemons.bus) { client in
                _ = try await client.createItem(in: login, label: "keep", attributes: ["compaction": "keep"],
                                                secret: secret("kept"), replace: false)
                switch trigger {
                case .update:
                    // Only updates: superseded records pile up until the file is compacted.
                    let item = try await client.createItem(in: login, label: "u", attributes: ["compaction": "u"],
                                                           secret: secret("v0"), replace: false)
                    var version = 0
                    try await writeUntilCompacted(daemons) {
                        version += 1
                        try await client.setSecret(of: item, to: secret("v\(version)"))
                    }
                    return (["keep": "kept", "u": "v\(version)"], [])
                case .delete:
                    // Many items, then only deletes: each delete adds a record and removes a live one.
                    var items: [(name: String, path: ObjectPath)] = []
                    for index in 0..<300 {
                        let name = "d\(index)"
                        items.append((name, try await client.createItem(
                            in: login, label: name, attributes: ["compaction": name], secret: secret(name),
                            replace: false)))
                    }
                    var deleted: [String] = []
                    try await writeUntilCompacted(daemons) {
                        let next = items.removeFirst()
                        try await client.deleteItem(next.path)
                        deleted.append(next.name)
                    }
                    var present = ["keep": "kept"]
                    for item in items { present[item.name] = item.name }
                    return (present, deleted)
                }
            }
            await daemons.stop()

            _ = try await daemons.start(DaemonSequence.options("restarted"))
            try await withClient(on: daemons.bus) { client in
                for (name, value) in expected.present {
                    let found = try await client.searchItems(["compaction": name])
                    #expect(found.unlocked.count == 1, "\(name): \(found)")
                    if let item = found.unlocked.first {
                        let text = try await client.secret(of: item).text
                        #expect(text == value, "\(name)")
                    }
                }
                // Only the last deletes matter: every earlier one was followed by further writes.
                for name in expected.absent.suffix(3) {
                    let found = try await client.searchItems(["compaction": name])
                    #expect(found.unlocked.isEmpty && found.locked.isEmpty, "deleted \(name) is back: \(found)")
                }
            }
            await daemons.stop()
        }
    }

    /// Runs `write` until the login file shrinks (it was compacted) after one of them; fails after 2000 writes.
    private func writeUntilCompacted(_ daemons: DaemonSequence, _ write: () async throws -> Void) async throws {
        let file = daemons.collectionFile("login").path
        func size() throws -> Int {
            try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int ?? 0
        }
        var previous = try size()
        for _ in 0..<2000 {
            try await write()
            let now = try size()
            if now < previous { return }
            previous = now
        }
        Issue.record("the login file was never compacted")
    }
}

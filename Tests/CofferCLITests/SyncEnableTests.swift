// SPDX-License-Identifier: Apache-2.0
// `coffer sync enable` against the real cofferd: what secret-tool stores and clears reaches this device's journal.

import CollectionSync
import Foundation
import SecretCrypto
import SecretServiceTestSupport
import Testing

@Suite("coffer sync enable", .timeLimit(.minutes(2)))
struct SyncEnableTests {
    /// The folder as another device reads it: the master key from the wrap, then the journal named `device`.
    struct Reader {
        let keys: SyncKeys
        var follower: JournalFollower
        var merged = MergedCollection()

        init(root: String, collection: String, device: String) throws {
            let folder = SyncFolder(root: root, collection: try #require(SyncIdentifier(hex: collection)))
            let wrap = try #require(try folder.wraps().first)
            let password = try SecretBytes(copying: Array(DaemonHarness.testLoginPassword.utf8))
            keys = try SyncKeys(masterKey: try wrap.unwrap(password: password), collection: folder.collection)
            follower = JournalFollower(folder: folder, device: try #require(SyncIdentifier(hex: device)))
        }

        mutating func catchUp() throws {
            for record in try follower.readFile(keys: keys).get().records { merged.merge(record) }
        }

        var items: [SyncItemContent] { Array(merged.items.values) }
    }

    @Test("after enable, a secret stored and then cleared with secret-tool is in the journal when secret-tool returns, also after a restart")
    func secretToolChangesReachJournal() async throws {
        try await TestBus.withPrivateBus { bus in
            let options = DaemonHarness.SubprocessOptions(arguments: DaemonHarness.cheapKeyDerivation)
            var daemon = try await DaemonHarness.start(on: bus, options: options)
            let coffer = CofferCLI(bus: bus)
            let clients = ClientEnvironment(bus: bus)
            let folder = bus.directory.appendingPathComponent("Sync").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            do {
                let wrong = try await coffer.run(["sync", "enable", "--collection", "login", folder], input: "wrong\n")
                #expect(wrong.status == 51, "\(wrong.stderr)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
                let missing = try await coffer.run(["sync", "enable", folder + "/none"],
                                                   input: DaemonHarness.testLoginPassword + "\n")
                #expect(missing.status == 66, "\(missing.stderr)")

                let (enabled, json) = try await coffer.json(["sync", "enable", "--collection", "login", folder, "--json"],
                                                            input: DaemonHarness.testLoginPassword + "\n")
                #expect(enabled.status == 0, "\(enabled.stderr)")
                let ids = try #require(json as? [String: String])
                var reader = try Reader(root: folder, collection: try #require(ids["collection"]),
                                        device: try #require(ids["device"]))
                try reader.catchUp()
                #expect(reader.items.isEmpty)

                let stored = try await clients.secretTool(["store", "--label=Mail", "service", "imap", "user", "alice"],
                                                          input: Data("hunter2".utf8))
                #expect(stored.status == 0, "\(stored.stderr)")
                try reader.catchUp()
                let item = try #require(reader.items.first)
                #expect(reader.items.count == 1 && item.label == "Mail")
                #expect(item.attributes["service"] == "imap" && item.attributes["user"] == "alice")
                #expect(item.secret.withUnsafeBytes { Array($0) } == Array("hunter2".utf8))

                #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")
                daemon = try await DaemonHarness.start(on: bus, options: options)
                let cleared = try await clients.secretTool(["clear", "service", "imap"])
                #expect(cleared.status == 0, "\(cleared.stderr)")
                try reader.catchUp()
                #expect(reader.items.isEmpty)
                #expect(reader.merged.entries.count == 1, "the deletion is a tombstone")
            } catch {
                await daemon.kill()
                throw error
            }
            #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")
        }
    }

    @Test("a collection named with sync-folder in cofferd.conf is synchronized at its next unlock with its password")
    func configuredFolder() async throws {
        try await TestBus.withPrivateBus { bus in
            let folder = bus.directory.appendingPathComponent("Sync").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let config = bus.directory.appendingPathComponent("cofferd.conf")
            try Data("[collection login]\nsync-folder = \(folder)\n".utf8).write(to: config)
            let clients = ClientEnvironment(bus: bus)
            // The first start makes login; the item stored then is in no journal yet.
            var daemon = try await DaemonHarness.start(
                on: bus, options: .init(arguments: DaemonHarness.cheapKeyDerivation))
            do {
                let stored = try await clients.secretTool(["store", "--label=Early", "app", "early"],
                                                          input: Data("first".utf8))
                #expect(stored.status == 0, "\(stored.stderr)")
                #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")
                #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)

                daemon = try await DaemonHarness.start(on: bus, options: .init(
                    arguments: DaemonHarness.cheapKeyDerivation + ["--config", config.path], name: "configured"))
                let later = try await clients.secretTool(["store", "--label=Later", "app", "later"],
                                                         input: Data("second".utf8))
                #expect(later.status == 0, "\(later.stderr)")
                let collection = try #require(try SyncFolder.collections(in: folder).first)
                let device = try #require(try SyncFolder(root: folder, collection: collection).devices().first)
                var reader = try Reader(root: folder, collection: collection.description, device: device.description)
                try reader.catchUp()
                #expect(Set(reader.items.map(\.label)) == ["Early", "Later"], "log:\n\(daemon.log())")
            } catch {
                await daemon.kill()
                throw error
            }
            #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")
        }
    }
}

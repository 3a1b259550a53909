// SPDX-License-Identifier: Apache-2.0
// A synchronized collection's local changes reach this device's journal in the folder (docs/SYNC.md).

import CollectionSync
import Foundation
import SecretCrypto
import SecretServiceProtocol
@testable import SecretStore
import Testing

/// Reads a synchronized collection's folder as another device would: the master key from the password wrap, then
/// this device's journal, verified from where the last read stopped.
struct FolderReader {
    let folder: SyncFolder
    let keys: SyncKeys
    var follower: JournalFollower
    var merged = MergedCollection()

    init(root: String, enabled: SyncEnabled, password text: String) throws {
        folder = SyncFolder(root: root, collection: try #require(SyncIdentifier(hex: enabled.collection)))
        let wrap = try #require(try folder.wraps().first)
        keys = try SyncKeys(masterKey: try wrap.unwrap(password: password(text)), collection: folder.collection)
        follower = JournalFollower(folder: folder, device: try #require(SyncIdentifier(hex: enabled.device)))
    }

    /// The records added since the last read, merged into ``merged``.
    mutating func newRecords() throws -> [SyncRecord] {
        let read = try follower.readFile(keys: keys).get()
        for record in read.records { merged.merge(record) }
        return read.records
    }

    /// The live items, by label, with their secrets as text.
    var itemsByLabel: [String: String] {
        Dictionary(uniqueKeysWithValues: merged.items.values.map { content in
            (content.label, content.secret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) })
        })
    }
}

@Suite("Synchronized collections: local changes reach the journal")
struct SyncJournalWriteTests {
    /// A store with `login` (password `pw`) holding one item, and an empty folder beside it.
    static func setUp(_ dir: ScratchDirectory) async throws -> (SecretStore, folder: String) {
        let store = try await dir.store()
        _ = try await store.createCollection(label: "Login", alias: "", password: password("pw"), preferredID: "login")
        _ = try await store.createItem(in: "login", label: "before", attributes: ["k": "1"], secret: secret("old"),
                                       replace: false)
        let folder = dir.path + "-folder"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return (store, folder)
    }

    @Test("enabling writes every item to the journal; each create, change, rename and delete is in it when the call returns")
    func changesReachJournal() async throws {
        let dir = try ScratchDirectory()
        let (store, folder) = try await Self.setUp(dir)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let enabled = try await store.enableSync(of: "login", password: password("pw"), folder: folder)
        var reader = try FolderReader(root: folder, enabled: enabled, password: "pw")
        let first = try reader.newRecords()
        #expect(first.contains { if case .deviceName = $0.change { true } else { false } })
        #expect(reader.itemsByLabel == ["before": "old"])

        let made = try await store.createItem(in: "login", label: "new", attributes: ["k": "2"], secret: secret("s2"),
                                              replace: false).id
        #expect(try reader.newRecords().count == 1)
        #expect(reader.itemsByLabel == ["before": "old", "new": "s2"])

        try await store.setLabel(collection: "login", item: made, to: "renamed")
        try await store.setSecret(collection: "login", item: made, to: secret("s3"))
        #expect(try reader.newRecords().count == 2)
        #expect(reader.itemsByLabel == ["before": "old", "renamed": "s3"])

        let before = try #require(try await store.search(in: "login", ["k": "1"]).first)
        try await store.deleteItem(collection: "login", item: before)
        #expect(try reader.newRecords().count == 1)
        #expect(reader.itemsByLabel == ["renamed": "s3"])
        #expect(reader.merged.entries.count == 2, "the deletion is a tombstone")
    }

    @Test("after a restart nothing is written twice, and an item keeps its synchronized id")
    func restartKeepsIDs() async throws {
        let dir = try ScratchDirectory()
        let (store, folder) = try await Self.setUp(dir)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let enabled = try await store.enableSync(of: "login", password: password("pw"), folder: folder)
        var reader = try FolderReader(root: folder, enabled: enabled, password: "pw")
        _ = try reader.newRecords()
        let syncID = try #require(reader.merged.items.keys.first)

        let restarted = try await dir.store()
        #expect(try await restarted.unlock("login", password: password("pw")))
        #expect(try reader.newRecords().isEmpty)
        let item = try #require(try await restarted.itemIDs(in: "login").first)
        try await restarted.setLabel(collection: "login", item: item, to: "after restart")
        let records = try reader.newRecords()
        guard case .put(let changed, let content) = try #require(records.first?.change) else {
            Issue.record("expected a put, got \(records)")
            return
        }
        #expect(changed == syncID && content.label == "after restart")
    }

    @Test("a change the journal could not take fails, stands locally, and reaches the journal when it is opened again")
    func failedAppendCatchesUp() async throws {
        let dir = try ScratchDirectory()
        let (store, folder) = try await Self.setUp(dir)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let enabled = try await store.enableSync(of: "login", password: password("pw"), folder: folder)
        var reader = try FolderReader(root: folder, enabled: enabled, password: "pw")
        _ = try reader.newRecords()
        // An engine renames its copy over the journal: the writer refuses to append to a file nobody sees.
        let journal = reader.follower.path
        let copy = journal + ".copy"
        try FileManager.default.copyItem(atPath: journal, toPath: copy)
        #expect(rename(copy, journal) == 0)
        let item = try #require(try await store.itemIDs(in: "login").first)
        await #expect(throws: SecretServiceError.self) {
            try await store.setLabel(collection: "login", item: item, to: "while refused")
        }
        #expect(try await store.itemInfo(collection: "login", item: item).label == "while refused")
        #expect(try reader.newRecords().isEmpty)

        _ = try await store.setLocked("login", true)
        #expect(try await store.unlock("login", password: password("pw")))
        #expect(try reader.newRecords().count == 1)
        #expect(reader.itemsByLabel == ["while refused": "old"])
    }

    @Test("a password change that re-keys the collection keeps it synchronized")
    func rekeyKeepsSync() async throws {
        let dir = try ScratchDirectory()
        let (store, folder) = try await Self.setUp(dir)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let enabled = try await store.enableSync(of: "login", password: password("pw"), folder: folder)
        var reader = try FolderReader(root: folder, enabled: enabled, password: "pw")
        _ = try reader.newRecords()
        #expect(try await store.passwordChange(of: "login", from: password("pw"), to: password("new")) == .rekeyed)
        _ = try await store.setLocked("login", true)
        #expect(try await store.unlock("login", password: password("new")))
        _ = try await store.createItem(in: "login", label: "after", attributes: [:], secret: secret("x"),
                                       replace: false)
        _ = try reader.newRecords()
        #expect(reader.itemsByLabel == ["before": "old", "after": "x"])
    }

    @Test("a folder moved and named in the settings is where the journal is written after a restart")
    func movedFolder() async throws {
        let dir = try ScratchDirectory()
        let (store, folder) = try await Self.setUp(dir)
        let moved = folder + "-moved"
        defer {
            try? FileManager.default.removeItem(atPath: folder)
            try? FileManager.default.removeItem(atPath: moved)
        }
        let enabled = try await store.enableSync(of: "login", password: password("pw"), folder: folder)
        try FileManager.default.moveItem(atPath: folder, toPath: moved)
        let restarted = try await dir.store()
        await restarted.configureSyncFolders(["login": moved])
        #expect(try await restarted.unlock("login", password: password("pw")))
        _ = try await restarted.createItem(in: "login", label: "after the move", attributes: [:], secret: secret("m"),
                                           replace: false)
        var reader = try FolderReader(root: moved, enabled: enabled, password: "pw")
        _ = try reader.newRecords()
        #expect(reader.itemsByLabel == ["before": "old", "after the move": "m"])
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    @Test("a deleted collection's sync state goes with it: one made anew under its name is not synchronized")
    func deleteForgetsSync() async throws {
        let dir = try ScratchDirectory()
        let (store, folder) = try await Self.setUp(dir)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let enabled = try await store.enableSync(of: "login", password: password("pw"), folder: folder)
        let state = dir.path + "/sync/login.state"
        #expect(FileManager.default.fileExists(atPath: state))
        try await store.deleteCollection("login")
        #expect(!FileManager.default.fileExists(atPath: state))
        _ = try await store.createCollection(label: "Login", alias: "", password: password("pw"), preferredID: "login")
        _ = try await store.createItem(in: "login", label: "new", attributes: [:], secret: secret("n"), replace: false)
        var reader = try FolderReader(root: folder, enabled: enabled, password: "pw")
        _ = try reader.newRecords()
        #expect(reader.itemsByLabel == ["before": "old"], "the folder keeps what it had, and gets nothing new")
    }

    @Test("a wrong password, a relative folder or a second enable is refused, and the folder stays empty")
    func refusals() async throws {
        let dir = try ScratchDirectory()
        let (store, folder) = try await Self.setUp(dir)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        await #expect(throws: SecretServiceError.self) {
            try await store.enableSync(of: "login", password: password("wrong"), folder: folder)
        }
        await #expect(throws: SecretServiceError.self) {
            try await store.enableSync(of: "login", password: password("pw"), folder: "relative/folder")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        _ = try await store.enableSync(of: "login", password: password("pw"), folder: folder)
        await #expect(throws: SecretServiceError.self) {
            try await store.enableSync(of: "login", password: password("pw"), folder: folder)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == 1)
    }
}

// SPDX-License-Identifier: Apache-2.0
// Two stores share a synchronized collection through two folders the test keeps in step by copying files.

import CollectionSync
import Foundation
import SecretCrypto
import SecretServiceProtocol
@testable import SecretStore
import Testing

/// Two data directories and two folders; ``carry(_:to:)`` plays the sync engine.
struct TwoMachines {
    let first: ScratchDirectory
    let second: ScratchDirectory
    var firstFolder: String { first.path + "-folder" }
    var secondFolder: String { second.path + "-folder" }

    init() throws {
        first = try ScratchDirectory()
        second = try ScratchDirectory()
        for folder in [firstFolder, secondFolder] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
    }

    func cleanUp() {
        for folder in [firstFolder, secondFolder] { try? FileManager.default.removeItem(atPath: folder) }
    }

    /// Copies every file of `from`'s collection directories into `to`, whole, or with the last `short` bytes of
    /// each journal still missing (a transfer under way); the destination device's own files stay as they are (an
    /// engine never brings back an older copy of a file its machine wrote).
    func carry(_ from: String, to: String, short: Int? = nil) throws {
        let manager = FileManager.default
        let own = to == firstFolder ? firstDevices : secondDevices
        for collection in try manager.contentsOfDirectory(atPath: from) {
            let source = from + "/" + collection, target = to + "/" + collection
            try manager.createDirectory(atPath: target, withIntermediateDirectories: true)
            for name in try manager.contentsOfDirectory(atPath: source) where !own.contains(where: name.hasPrefix) {
                var bytes = try Data(contentsOf: URL(fileURLWithPath: source + "/" + name))
                if let short, name.hasSuffix(".journal") { bytes = bytes.prefix(max(0, bytes.count - short)) }
                // Written beside and renamed into place, as Syncthing and Nextcloud do.
                let temporary = target + "/.syncthing." + name + ".tmp"
                try bytes.write(to: URL(fileURLWithPath: temporary))
                #expect(rename(temporary, target + "/" + name) == 0)
            }
        }
    }

    var firstDevices: [String] = []
    var secondDevices: [String] = []
}

@Suite("Synchronized collections: merging other devices' journals")
struct SyncMergeTests {
    static func labels(_ store: SecretStore, _ id: String) async throws -> [String: String] {
        var found: [String: String] = [:]
        for item in try await store.itemIDs(in: id) {
            let info = try await store.itemInfo(collection: id, item: item)
            found[info.label] = try await store.secret(collection: id, item: item).value
                .withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        }
        return found
    }

    @Test("a joined machine gets every item; creates, changes and deletes travel both ways; half-copied journals wait")
    func joinAndMerge() async throws {
        var machines = try TwoMachines()
        defer { machines.cleanUp() }
        let first = try await machines.first.store()
        _ = try await first.createCollection(label: "Login", alias: "", password: password("pw"), preferredID: "login")
        _ = try await first.createItem(in: "login", label: "mail", attributes: ["a": "1"], secret: secret("m1"),
                                       replace: false)
        let enabled = try await first.enableSync(of: "login", password: password("pw"), folder: machines.firstFolder)
        machines.firstDevices = [enabled.device]
        try machines.carry(machines.firstFolder, to: machines.secondFolder)

        let second = try await machines.second.store()
        await #expect(throws: SecretServiceError.self) {
            _ = try await second.joinSync(folder: machines.secondFolder, collection: nil, password: password("nope"),
                                          label: "Shared")
        }
        let (shared, joined) = try await second.joinSync(folder: machines.secondFolder, collection: nil,
                                                         password: password("pw"), label: "Shared")
        machines.secondDevices = [joined.device]
        #expect(joined.collection == enabled.collection && joined.device != enabled.device)
        #expect(try await Self.labels(second, shared) == ["mail": "m1"])

        // The second machine adds an item; the first sees it once the file arrives, not while half of it has.
        _ = try await second.createItem(in: shared, label: "web", attributes: ["a": "2"], secret: secret("w1"),
                                        replace: false)
        try machines.carry(machines.secondFolder, to: machines.firstFolder, short: 7)
        await first.mergeSyncArrivals(of: "login")
        #expect(try await Self.labels(first, "login") == ["mail": "m1"])
        #expect(await first.setAsideJournals(of: "login").isEmpty)
        try machines.carry(machines.secondFolder, to: machines.firstFolder)
        await first.mergeSyncArrivals(of: "login")
        #expect(try await Self.labels(first, "login") == ["mail": "m1", "web": "w1"])

        // A delete and a change travel back.
        let mail = try #require(try await first.search(in: "login", ["a": "1"]).first)
        try await first.deleteItem(collection: "login", item: mail)
        let web = try #require(try await first.search(in: "login", ["a": "2"]).first)
        try await first.setSecret(collection: "login", item: web, to: secret("w2"))
        try machines.carry(machines.firstFolder, to: machines.secondFolder)
        await second.mergeSyncArrivals(of: shared)
        #expect(try await Self.labels(second, shared) == ["web": "w2"])

        // Records that arrive while the collection is locked are merged at the next unlock.
        _ = try await second.setLocked(shared, true)
        _ = try await first.createItem(in: "login", label: "late", attributes: [:], secret: secret("l"), replace: false)
        try machines.carry(machines.firstFolder, to: machines.secondFolder)
        await second.mergeSyncArrivals(of: shared)
        #expect(try await second.itemIDs(in: shared).count == 1)
        #expect(try await second.unlock(shared, password: password("pw")))
        #expect(try await Self.labels(second, shared) == ["web": "w2", "late": "l"])

        // A restart merges nothing twice and publishes nothing that came from elsewhere.
        let restarted = try await machines.second.store()
        #expect(try await restarted.unlock(shared, password: password("pw")))
        #expect(try await Self.labels(restarted, shared) == ["web": "w2", "late": "l"])
        let journal = machines.secondFolder + "/" + joined.collection + "/" + joined.device + ".journal"
        let before = try Data(contentsOf: URL(fileURLWithPath: journal)).count
        await restarted.mergeSyncArrivals(of: shared)
        #expect(try Data(contentsOf: URL(fileURLWithPath: journal)).count == before)
    }

    @Test("a tampered journal is set aside, stays so after a restart, and changes nothing locally")
    func tamperedJournal() async throws {
        var machines = try TwoMachines()
        defer { machines.cleanUp() }
        let first = try await machines.first.store()
        _ = try await first.createCollection(label: "Login", alias: "", password: password("pw"), preferredID: "login")
        let enabled = try await first.enableSync(of: "login", password: password("pw"), folder: machines.firstFolder)
        machines.firstDevices = [enabled.device]
        try machines.carry(machines.firstFolder, to: machines.secondFolder)
        let second = try await machines.second.store()
        let (shared, joined) = try await second.joinSync(folder: machines.secondFolder, collection: nil,
                                                         password: password("pw"), label: "Shared")
        machines.secondDevices = [joined.device]
        _ = try await second.createItem(in: shared, label: "one", attributes: [:], secret: secret("1"), replace: false)
        try machines.carry(machines.secondFolder, to: machines.firstFolder)
        await first.mergeSyncArrivals(of: "login")
        #expect(try await Self.labels(first, "login") == ["one": "1"])

        // Someone who can write the folder alters the last record of the second device's journal.
        _ = try await second.createItem(in: shared, label: "two", attributes: [:], secret: secret("2"), replace: false)
        try machines.carry(machines.secondFolder, to: machines.firstFolder)
        let copy = machines.firstFolder + "/" + joined.collection + "/" + joined.device + ".journal"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: copy))
        bytes[bytes.count - 40] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: copy))
        await first.mergeSyncArrivals(of: "login")
        #expect(try await Self.labels(first, "login") == ["one": "1"])
        #expect(await first.setAsideJournals(of: "login")[joined.device]?.isEmpty == false)

        // Put right again, it stays set aside: nothing more of it reaches this machine, across a restart too.
        bytes[bytes.count - 40] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: copy))
        let restarted = try await machines.first.store()
        #expect(try await restarted.unlock("login", password: password("pw")))
        #expect(try await Self.labels(restarted, "login") == ["one": "1"])
        #expect(await restarted.setAsideJournals(of: "login")[joined.device]?.isEmpty == false)
    }
}

// SPDX-License-Identifier: Apache-2.0
// Items kept sealed in memory: searches by tag, ordering by Modified read on demand, all across a restart.

import SecretCrypto
import SecretServiceProtocol
@testable import SecretStore
import Testing

@Suite("Items kept sealed: searches and times after a restart")
struct CompactItemsTests {
    static let cheap = Argon2idParameters(iterations: 1, memoryKiB: 256, parallelism: 1)

    /// A store over `dir` whose clock the test sets; the previous one, if any, must be closed.
    static func store(_ dir: ScratchDirectory, clock: ManualClock) async throws -> SecretStore {
        let store = SecretStore(clock: clock.storeClock, directory: dir.path, keyDerivation: cheap)
        _ = try await store.loadCollections()
        return store
    }

    @Test("after a restart, searches find items by shared and single attributes, newest Modified first, and the collection's Modified counts its items")
    func restartedSearchOrder() async throws {
        let dir = try ScratchDirectory()
        let clock = ManualClock()
        var ids: [String: String] = [:]
        do {
            let store = try await Self.store(dir, clock: clock)
            _ = try await store.createCollection(label: "Login", alias: "", password: password("pw"),
                                                 preferredID: "login")
            for name in ["a", "b", "c"] {
                clock.now += 1
                ids[name] = try await store.createItem(in: "login", label: "item \(name)",
                                                       attributes: ["group": "g", "name": name],
                                                       secret: secret("secret \(name)"), replace: false).id
            }
            // `a` changed last: newest Modified although created first.
            clock.now = 5_000
            try await store.setLabel(collection: "login", item: ids["a"]!, to: "item a, renamed")
            await store.close()
        }
        let store = try await Self.store(dir, clock: clock)
        // Locked: found by tag, in creation order (no times known), newest first.
        #expect(try await store.search(in: "login", ["group": "g"]) == [ids["c"]!, ids["b"]!, ids["a"]!])
        #expect(try await store.unlock("login", password: password("pw")))

        #expect(try await store.search(in: "login", ["group": "g"]) == [ids["a"]!, ids["c"]!, ids["b"]!])
        #expect(try await store.search(in: "login", ["group": "g", "name": "b"]) == [ids["b"]!])
        #expect(try await store.search(in: "login", ["group": "g", "name": "nobody"]) == [])
        #expect(try await store.collectionInfo("login").modified == 5_000)
        let info = try await store.itemInfo(collection: "login", item: ids["a"]!)
        #expect(info.label == "item a, renamed" && info.attributes == ["group": "g", "name": "a"])
        #expect(info.modified == 5_000)
        #expect(try await text(store.secret(collection: "login", item: ids["b"]!)) == "secret b")

        // A shared attribute's items go one by one; what is left is still found, and then nothing is.
        try await store.deleteItem(collection: "login", item: ids["c"]!)
        #expect(try await store.search(in: "login", ["group": "g"]) == [ids["a"]!, ids["b"]!])
        try await store.deleteItem(collection: "login", item: ids["a"]!)
        #expect(try await store.search(in: "login", ["group": "g"]) == [ids["b"]!])
        #expect(try await store.search(in: "login", ["name": "a"]) == [])
        try await store.deleteItem(collection: "login", item: ids["b"]!)
        #expect(try await store.search(in: "login", ["group": "g"]) == [])
        await store.close()
    }

    @Test("an item written after the start, beside items loaded from the file, survives a lock, an unlock and a compaction")
    func writtenBesideLoaded() async throws {
        let dir = try ScratchDirectory()
        let clock = ManualClock()
        do {
            let store = try await Self.store(dir, clock: clock)
            _ = try await store.createCollection(label: "Login", alias: "", password: password("pw"),
                                                 preferredID: "login")
            _ = try await store.createItem(in: "login", label: "loaded", attributes: ["k": "loaded"],
                                           secret: secret("from the file"), replace: false)
            await store.close()
        }
        let store = try await Self.store(dir, clock: clock)
        #expect(try await store.unlock("login", password: password("pw")))
        let written = try await store.createItem(in: "login", label: "written", attributes: ["k": "written"],
                                                 secret: secret("from memory"), replace: false).id
        // Enough rewrites of one item for a compaction, which encodes loaded and written items alike.
        for round in 0..<300 {
            try await store.setSecret(collection: "login", item: written, to: secret("from memory \(round)"))
        }
        try await store.setLocked("login", true)
        #expect(try await store.unlock("login", password: password("pw")))
        let loaded = try #require(try await store.search(in: "login", ["k": "loaded"]).first)
        #expect(try await text(store.secret(collection: "login", item: loaded)) == "from the file")
        #expect(try await text(store.secret(collection: "login", item: written)) == "from memory 299")
        await store.close()

        let reopened = try await Self.store(dir, clock: clock)
        #expect(try await reopened.unlock("login", password: password("pw")))
        #expect(try await reopened.search(in: "login", ["k": "written"]) == [written])
        #expect(try await text(reopened.secret(collection: "login", item: written)) == "from memory 299")
        await reopened.close()
    }

    @Test("metadata read again after a change, a lock and more reads than are kept in clear is the current one")
    func reopenedMetadataIsCurrent() async throws {
        let dir = try ScratchDirectory()
        let clock = ManualClock()
        let store = try await Self.store(dir, clock: clock)
        _ = try await store.createCollection(label: "Login", alias: "", password: password("pw"), preferredID: "login")
        let item = try await store.createItem(in: "login", label: "before", attributes: ["k": "v"],
                                              secret: secret("s"), replace: false).id
        #expect(try await store.itemInfo(collection: "login", item: item).label == "before")
        clock.now = 7_000
        try await store.setLabel(collection: "login", item: item, to: "after")
        try await store.setAttributes(collection: "login", item: item, to: ["k": "changed"])
        var info = try await store.itemInfo(collection: "login", item: item)
        #expect(info.label == "after" && info.attributes == ["k": "changed"] && info.modified == 7_000)

        // Locked, a persistent collection shows no metadata, although it was read just before.
        try await store.setLocked("login", true)
        info = try await store.itemInfo(collection: "login", item: item)
        #expect(info.label == "" && info.attributes == [:])
        #expect(try await store.unlock("login", password: password("pw")))

        // More items read than the store keeps opened: each still reads as itself, and so does the first.
        var others: [String: String] = [:]
        for index in 0..<(CollectionState.openedMetaLimit + 10) {
            let id = try await store.createItem(in: "login", label: "item \(index)", attributes: ["n": "\(index)"],
                                                secret: secret("s"), replace: false).id
            others[id] = "item \(index)"
        }
        for (id, label) in others {
            #expect(try await store.itemInfo(collection: "login", item: id).label == label)
        }
        #expect(try await store.itemInfo(collection: "login", item: item).label == "after")
        try await store.deleteItem(collection: "login", item: item)
        await #expect(throws: SecretServiceError.self) { try await store.itemInfo(collection: "login", item: item) }
        await store.close()
    }
}

// SPDX-License-Identifier: Apache-2.0
// Behaviour of the store: collections, aliases, items, search order, replace, locking, events, limits.

import SecretCrypto
import SecretServiceProtocol
import SecretStore
import Testing

/// A clock the test moves by hand, so ordering by Modified is deterministic.
final class ManualClock: @unchecked Sendable {  // mutated only from the test's own task
    var now: UInt64 = 1_000
    var storeClock: StoreClock { StoreClock { [unowned self] in self.now } }
}

func secret(_ text: String, _ contentType: String = "text/plain") -> StoredSecret {
    StoredSecret(value: try! SecretBytes(copying: Array(text.utf8)), contentType: contentType)
}

func text(_ secret: StoredSecret) -> String {
    String(decoding: secret.value.copyBytes(), as: UTF8.self)
}

@Suite("Secret store")
struct SecretStoreTests {
    let clock = ManualClock()

    func makeStore() async throws -> (SecretStore, String) {
        let store = SecretStore(clock: clock.storeClock)
        let (id, created) = try await store.createCollection(label: "Session", alias: "session", inMemory: true,
                                                             preferredID: "session")
        #expect(created)
        return (store, id)
    }

    @Test("items are created, read, changed and deleted")
    func itemLifecycle() async throws {
        let (store, c) = try await makeStore()
        let (id, created) = try await store.createItem(in: c, label: "L", attributes: ["service": "s"],
                                                       secret: secret("pw"), replace: false)
        #expect(created && id == "1")
        #expect(text(try await store.secret(collection: c, item: id)) == "pw")
        clock.now += 5
        try await store.setLabel(collection: c, item: id, to: "L2")
        try await store.setAttributes(collection: c, item: id, to: ["service": "t"])
        try await store.setSecret(collection: c, item: id, to: secret("new", "application/octet-stream"))
        let info = try await store.itemInfo(collection: c, item: id)
        #expect(info.label == "L2" && info.attributes == ["service": "t"] && info.modified == 1_005)
        #expect(info.contentType == "application/octet-stream" && info.created == 1_000)
        #expect(await store.search(["service": "s"]).isEmpty)
        #expect(await store.search(["service": "t"]).map(\.item) == [id])
        try await store.deleteItem(collection: c, item: id)
        await #expect(throws: SecretServiceError.noSuchObject("no such item")) {
            try await store.itemInfo(collection: c, item: id)
        }
    }

    @Test("search matches every queried pair exactly and orders newest Modified first")
    func searchOrder() async throws {
        let (store, c) = try await makeStore()
        var ids: [String] = []
        for n in 0..<4 {
            clock.now += 1
            ids.append(try await store.createItem(in: c, label: "\(n)", attributes: ["app": "x", "n": "\(n % 2)"],
                                                  secret: secret("\(n)"), replace: false).id)
        }
        #expect(await store.search(["app": "x"]).map(\.item) == ids.reversed())
        #expect(await store.search(["app": "x", "n": "1"]).map(\.item) == [ids[3], ids[1]])
        #expect(await store.search(["app": "X"]).isEmpty)
        #expect(await store.search([:]).count == 4)
        clock.now += 1
        try await store.setLabel(collection: c, item: ids[0], to: "touched")
        #expect(await store.search(["app": "x"]).first?.item == ids[0])
    }

    @Test("replace updates the newest item whose attributes contain the new ones, in place")
    func replace() async throws {
        let (store, c) = try await makeStore()
        let first = try await store.createItem(in: c, label: "a", attributes: ["s": "1", "u": "x"],
                                               secret: secret("one"), replace: true)
        let second = try await store.createItem(in: c, label: "b", attributes: ["s": "1", "u": "x"],
                                                secret: secret("two"), replace: true)
        #expect(first.created && !second.created && first.id == second.id)
        #expect(text(try await store.secret(collection: c, item: first.id)) == "two")
        let third = try await store.createItem(in: c, label: "c", attributes: ["s": "1", "u": "y"],
                                               secret: secret("three"), replace: true)
        #expect(third.created)
        let fourth = try await store.createItem(in: c, label: "d", attributes: ["s": "1", "u": "x"],
                                                secret: secret("four"), replace: false)
        #expect(fourth.created && fourth.id != first.id)
    }

    @Test("a locked collection refuses secrets and writes but still answers searches as locked")
    func locking() async throws {
        let (store, c) = try await makeStore()
        let id = try await store.createItem(in: c, label: "a", attributes: ["k": "v"], secret: secret("x"),
                                            replace: false).id
        #expect(try await store.setLocked(c, true))
        #expect(try await store.setLocked(c, true) == false)
        await #expect(throws: SecretServiceError.isLocked("the collection is locked")) {
            try await store.secret(collection: c, item: id)
        }
        await #expect(throws: SecretServiceError.isLocked("the collection is locked")) {
            try await store.createItem(in: c, label: "b", attributes: [:], secret: secret("y"), replace: false)
        }
        await #expect(throws: SecretServiceError.isLocked("the collection is locked")) {
            try await store.deleteItem(collection: c, item: id)
        }
        #expect(await store.search(["k": "v"]) == [ItemRef(collection: c, item: id, isLocked: true)])
        try await store.setLocked(c, false)
        #expect(text(try await store.secret(collection: c, item: id)) == "x")
    }

    @Test("aliases resolve, move, and vanish with their collection")
    func aliases() async throws {
        let (store, c) = try await makeStore()
        #expect(await store.resolveAlias("session") == c)
        let (other, created) = try await store.createCollection(label: "My keys", alias: "work", inMemory: true)
        #expect(created && other == "My_keys")
        let again = try await store.createCollection(label: "ignored", alias: "work", inMemory: true)
        #expect(again == (other, false))
        try await store.setAlias("default", to: other)
        #expect(await store.aliases(of: other) == ["default", "work"])
        await #expect(throws: SecretServiceError.self) { try await store.setAlias("bad name", to: other) }
        await #expect(throws: SecretServiceError.self) { try await store.setAlias("x", to: "nope") }
        try await store.deleteCollection(other)
        #expect(await store.resolveAlias("default") == nil)
        #expect(await store.collectionIDs() == [c])
        let (dup, _) = try await store.createCollection(label: "Session", inMemory: true)
        #expect(dup == "Session")
    }

    @Test("changes are announced in order")
    func events() async throws {
        let (store, c) = try await makeStore()
        let id = try await store.createItem(in: c, label: "a", attributes: [:], secret: secret("x"), replace: false).id
        try await store.deleteItem(collection: c, item: id)
        var seen: [StoreEvent] = []
        for await event in store.events {
            seen.append(event)
            if case .itemDeleted = event { break }
        }
        #expect(seen == [
            .collectionCreated(c), .collectionsListChanged,
            .itemCreated(collection: c, item: id), .collectionChanged(c, [.items, .modified]),
            .itemDeleted(collection: c, item: id),
        ])
    }

    @Test("limits are enforced on every write")
    func limits() async throws {
        let (store, c) = try await makeStore()
        let huge = StoredSecret(value: try SecretBytes(count: ItemLimits.default.maximumSecretBytes + 1),
                                contentType: "text/plain")
        await #expect(throws: SecretServiceError.self) {
            try await store.createItem(in: c, label: "x", attributes: [:], secret: huge, replace: false)
        }
        await #expect(throws: SecretServiceError.self) {
            try await store.createItem(in: c, label: String(repeating: "l", count: 5_000), attributes: [:],
                                       secret: secret("x"), replace: false)
        }
        #expect(try await store.itemIDs(in: c).isEmpty)
    }

    @Test("binary secrets and content types survive")
    func binary() async throws {
        let (store, c) = try await makeStore()
        let bytes: [UInt8] = [0, 255, 128, 10, 0]
        let id = try await store.createItem(in: c, label: "b", attributes: [:],
                                            secret: StoredSecret(value: try SecretBytes(copying: bytes),
                                                                 contentType: "application/octet-stream"),
                                            replace: false).id
        let back = try await store.secret(collection: c, item: id)
        #expect(back.value.copyBytes() == bytes && back.contentType == "application/octet-stream")
    }

    @Test("a secret read after a properties read gives the content type of the latest write")
    func contentTypeAfterPropertiesRead() async throws {
        let (store, c) = try await makeStore()
        let id = try await store.createItem(in: c, label: "t", attributes: [:], secret: secret("a", "text/plain"),
                                            replace: false).id
        // The properties read opens the item's metadata, which the secret read may then reuse.
        #expect(try await store.itemInfo(collection: c, item: id).contentType == "text/plain")
        #expect(try await store.secret(collection: c, item: id).contentType == "text/plain")
        try await store.setSecret(collection: c, item: id, to: secret("{}", "application/json"))
        #expect(try await store.secret(collection: c, item: id).contentType == "application/json")
        #expect(try await store.itemInfo(collection: c, item: id).contentType == "application/json")
        #expect(try await store.secret(collection: c, item: id).contentType == "application/json")
    }
}

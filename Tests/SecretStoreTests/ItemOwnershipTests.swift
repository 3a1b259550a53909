// SPDX-License-Identifier: Apache-2.0
// The creator and the always-allowed applications in an item's sealed metadata, and metadata written before them.

@testable import SecretStore
import Testing

@Suite("Item ownership in sealed metadata")
struct ItemOwnershipTests {
    static let plain = ItemMeta(label: "l", attributes: ["a": "b"], contentType: "text/plain", created: 1, modified: 2)

    @Test("metadata without creator encodes exactly as before it existed, and decodes with none")
    func unowned() throws {
        var writer = ByteWriter()
        writer.string("l")
        writer.u16(1)
        writer.string("a")
        writer.string("b")
        writer.string("text/plain")
        writer.u64(1)
        writer.u64(2)
        #expect(Self.plain.encode() == writer.bytes)
        let decoded = try ItemMeta.decode(writer.bytes)
        #expect(decoded.creator == nil && decoded.allowed.isEmpty)
    }

    @Test("creator and allowed applications round-trip")
    func roundTrip() throws {
        var meta = Self.plain
        meta.creator = "exe:/usr/bin/a@1:2"
        meta.allowed = ["flatpak:org.example.B", "snap:c"]
        #expect(try ItemMeta.decode(meta.encode()) == meta)
        // `modified` stays the last eight bytes, where readers of the time alone look.
        #expect(Array(meta.encode().suffix(8)) == [0, 0, 0, 0, 0, 0, 0, 2])
        meta.creator = nil
        #expect(try ItemMeta.decode(meta.encode()) == meta)
    }

    @Test("unknown, repeated or out-of-order fields are refused, not skipped")
    func refused() {
        var meta = Self.plain
        meta.creator = "exe:/x"
        let bytes = meta.encode()
        // A second creator field, inserted before the times.
        var twice = bytes
        twice.insert(contentsOf: [ItemMeta.creatorTag, 0, 1, 0x41], at: bytes.count - 16)
        #expect(throws: FormatError.self) { try ItemMeta.decode(twice) }
        var unknown = Self.plain.encode()
        unknown.insert(contentsOf: [9, 0, 0], at: unknown.count - 16)
        #expect(throws: FormatError.self) { try ItemMeta.decode(unknown) }
        #expect(throws: FormatError.self) { try ItemMeta.decode(Self.plain.encode() + [9]) }
    }

    @Test("the store records the creator, keeps it on replace, and stores always-allowed applications")
    func store() async throws {
        let store = SecretStore()
        let (collection, _) = try await store.createCollection(label: "c", alias: "", inMemory: true)
        let (item, _) = try await store.createItem(in: collection, label: "i", attributes: ["k": "v"],
                                                   secret: secret("s"), replace: false,
                                                   creator: "exe:/a")
        let (same, created) = try await store.createItem(in: collection, label: "i2", attributes: ["k": "v"],
                                                         secret: secret("t"), replace: true,
                                                         creator: "exe:/b")
        #expect(same == item && !created)
        #expect(try await store.itemOwnership(collection: collection, item: item)
            == ItemOwnership(creator: "exe:/a", allowed: []))
        try await store.setAllowedApplications(["exe:/b"], collection: collection, item: item)
        #expect(try await store.itemOwnership(collection: collection, item: item).allowed == ["exe:/b"])
    }
}

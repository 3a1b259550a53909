// SPDX-License-Identifier: Apache-2.0
// A password change replaces the master key: the old password reads nothing written after it, from any copy.

import Foundation
import SecretCrypto
import SecretServiceProtocol
@testable import SecretStore
import Testing

@Suite("Collection files: password changes")
struct PasswordChangeTests {
    /// The master key that `password` unwraps from the last key wrap of `bytes`, if any.
    static func master(in bytes: Data, password text: String) throws -> SecretBytes? {
        let parsed = try Journal.parse([UInt8](bytes))
        let wraps = parsed.frames.compactMap { frame -> KeyWrap? in
            if case .keyWrap(let wrap) = frame.record { return wrap }
            return nil
        }
        var found: SecretBytes?
        for wrap in wraps {
            let kek = try KeyWrapping.keyEncryptionKey(password: password(text), salt: wrap.salt,
                                                       parameters: wrap.parameters)
            if let master = try KeySlotWrapping.open(KeySlot(legacy: wrap), kek: kek, collectionID: parsed.header.id) {
                found = master
            }
        }
        return found
    }

    /// The sealed secrets of `bytes`' items, by item id.
    static func sealedSecrets(in bytes: Data) throws -> [String: SealedBlob] {
        var secrets: [String: SealedBlob] = [:]
        for frame in try Journal.parse([UInt8](bytes)).frames {
            if case .item(let item) = frame.record { secrets[item.id] = item.secret }
        }
        return secrets
    }

    @Test("after a change, the old password opens neither the current file nor, with a backup, what came after")
    func oldPasswordReadsNothingNew() async throws {
        let dir = try ScratchDirectory()
        let backup: Data
        do {
            let store = try await dir.store()
            _ = try await store.createCollection(label: "T", alias: "", password: password("old"), preferredID: "t")
            _ = try await store.createItem(in: "t", label: "before", attributes: ["n": "1"], secret: secret("one"),
                                           replace: false)
            backup = try #require(FileManager.default.contents(atPath: dir.file("t")))
            #expect(try await store.changePassword(of: "t", from: password("old"), to: password("new")))
            _ = try await store.createItem(in: "t", label: "after", attributes: ["n": "2"], secret: secret("two"),
                                           replace: false)
        }
        let current = try #require(FileManager.default.contents(atPath: dir.file("t")))
        // The current file holds one wrap, the new password's.
        #expect(try Self.master(in: current, password: "old") == nil, "the old password still unwraps a key")
        let newMaster = try #require(try Self.master(in: current, password: "new"))
        // The key the old password gives from the backup opens no secret of the current file.
        let oldMaster = try #require(try Self.master(in: backup, password: "old"))
        #expect(!oldMaster.constantTimeEquals(newMaster), "the master key was kept")
        let oldVault = try SecretVault(key: try CollectionKeys(master: oldMaster, collectionID: "t").data,
                                       collectionID: "t")
        for (id, sealed) in try Self.sealedSecrets(in: current) {
            #expect(throws: (any Error).self, "item \(id) opens with the old key") {
                try oldVault.openSecret(sealed, item: id)
            }
        }
        // Attribute tags were made again with a fresh index key: none of the backup's reappears.
        let oldTags = try Journal.parse([UInt8](backup)).frames.flatMap { frame -> [[UInt8]] in
            if case .item(let item) = frame.record { return item.tags }
            return []
        }
        let newTags = try Journal.parse([UInt8](current)).frames.flatMap { frame -> [[UInt8]] in
            if case .item(let item) = frame.record { return item.tags }
            return []
        }
        #expect(Set(oldTags).isDisjoint(with: Set(newTags)))
        // The collection itself: the new password opens it with every item; the old one is refused.
        let store = try await dir.store()
        #expect(try await !store.unlock("t", password: password("old")))
        #expect(try await store.unlock("t", password: password("new")))
        var found: Set<String> = []
        for item in try await store.search(in: "t", [:]) {
            found.insert(String(decoding: try await store.secret(collection: "t", item: item).value.copyBytes(),
                                as: UTF8.self))
        }
        #expect(found == ["one", "two"])
    }

    @Test("a change on a locked collection leaves it locked, searchable by the new tags, generations growing")
    func lockedCollectionStaysLocked() async throws {
        let dir = try ScratchDirectory()
        let store = try await dir.store()
        _ = try await store.createCollection(label: "T", alias: "", password: password("old"), preferredID: "t")
        _ = try await store.createItem(in: "t", label: "x", attributes: ["k": "v"], secret: secret("s"), replace: false)
        try await store.setLocked("t", true)
        let before = try Journal.parse([UInt8](FileManager.default.contents(atPath: dir.file("t"))!)).lastSequence
        #expect(try await !store.changePassword(of: "t", from: password("wrong"), to: password("new")))
        #expect(try await store.changePassword(of: "t", from: password("old"), to: password("new")))
        #expect(try await store.collectionInfo("t").isLocked)
        #expect(try await store.search(in: "t", ["k": "v"]).count == 1, "locked search uses the new tags")
        let after = try Journal.parse([UInt8](FileManager.default.contents(atPath: dir.file("t"))!)).lastSequence
        #expect(after > before)
        let kinds = try Journal.parse([UInt8](FileManager.default.contents(atPath: dir.file("t"))!)).frames
            .filter { if case .keyWrap = $0.record { true } else { false } }
        #expect(kinds.count == 1)
    }
}

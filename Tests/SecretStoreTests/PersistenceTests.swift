// SPDX-License-Identifier: Apache-2.0
// Encrypted collection files: restart, locked search, passwords, tampering, rollback, crashes, compaction.

import Foundation
import SecretCrypto
import Synchronization
import SecretServiceProtocol
@testable import SecretStore
import Testing

/// A scratch data directory, removed afterwards.
final class ScratchDirectory: Sendable {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-store-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The store ``store()`` made last, closed when the next one is made.
    private let current = Mutex<SecretStore?>(nil)

    /// A store over this directory with cheap key derivation (tests measure behaviour, not cost). A restart: the
    /// store made before is closed first, as a daemon's exit would release the directory.
    func store() async throws -> SecretStore {
        if let previous = current.withLock({ $0 }) { await previous.close() }
        let store = try await openAnother()
        current.withLock { $0 = store }
        return store
    }

    /// A store over this directory that leaves the one made before alone.
    func openAnother() async throws -> SecretStore {
        let store = SecretStore(directory: path, keyDerivation: Argon2idParameters(iterations: 1, memoryKiB: 256,
                                                                                   parallelism: 1))
        _ = try await store.loadCollections()
        return store
    }

    func file(_ id: String) -> String { path + "/" + id + ".coffer" }
}

func password(_ text: String) -> SecretBytes { try! SecretBytes(copying: Array(text.utf8)) }

@Suite("Collection files")
struct PersistenceTests {
    @Test("items survive a restart; the file holds no secret, label or attribute value in clear")
    func restart() async throws {
        let dir = try ScratchDirectory()
        do {
            let store = try await dir.store()
            let (id, created) = try await store.createCollection(label: "Login", alias: "default",
                                                                 password: password("pw"), preferredID: "login")
            #expect(created && id == "login")
            _ = try await store.createItem(in: id, label: "Mail label", attributes: ["service": "imap-host"],
                                           secret: secret("s3cret-value"), replace: false)
        }
        let bytes = try #require(FileManager.default.contents(atPath: dir.file("login")))
        for clear in ["s3cret-value", "Mail label", "imap-host", "service"] {
            #expect(bytes.range(of: Data(clear.utf8)) == nil, "\(clear) appears in the file")
        }
        let store = try await dir.store()
        #expect(await store.resolveAlias("default") == "login")
        #expect(try await store.collectionInfo("login").isLocked)
        #expect(try await store.collectionInfo("login").label == "Login")
        let locked = await store.search(["service": "imap-host"])
        #expect(locked.map(\.isLocked) == [true])
        #expect(await store.search(["service": "other"]).isEmpty)
        #expect(try await store.unlock("login", password: password("wrong")) == false)
        #expect(try await store.unlock("login", password: password("pw")))
        let item = try #require(locked.first?.item)
        #expect(text(try await store.secret(collection: "login", item: item)) == "s3cret-value")
        #expect(try await store.itemInfo(collection: "login", item: item).label == "Mail label")
        try await store.setLocked("login", true)
        await #expect(throws: SecretServiceError.self) { try await store.secret(collection: "login", item: item) }
    }

    @Test("deletes, renames and a changed password persist; the old password stops working")
    func changes() async throws {
        let dir = try ScratchDirectory()
        do {
            let store = try await dir.store()
            let id = try await store.createCollection(label: "Work", alias: "", password: password("a")).id
            let keep = try await store.createItem(in: id, label: "keep", attributes: ["k": "1"], secret: secret("x"),
                                                  replace: false).id
            let drop = try await store.createItem(in: id, label: "drop", attributes: ["k": "2"], secret: secret("y"),
                                                  replace: false).id
            try await store.deleteItem(collection: id, item: drop)
            try await store.setLabel(collection: id, item: keep, to: "kept")
            try await store.setLabel(ofCollection: id, to: "Work 2")
            #expect(try await store.changePassword(of: id, from: password("nope"), to: password("b")) == false)
            #expect(try await store.changePassword(of: id, from: password("a"), to: password("b")))
        }
        let store = try await dir.store()
        #expect(try await store.collectionInfo("Work").label == "Work 2")
        #expect(try await store.unlock("Work", password: password("a")) == false)
        #expect(try await store.unlock("Work", password: password("b")))
        #expect(try await store.itemIDs(in: "Work") == ["1"])
        #expect(try await store.itemInfo(collection: "Work", item: "1").label == "kept")
    }

    @Test("a flipped byte, a truncation or an older copy is detected and the file is left untouched",
          arguments: ["flip", "truncate", "rollback"])
    func tampering(_ attack: String) async throws {
        let dir = try ScratchDirectory()
        var older = Data()
        do {
            let store = try await dir.store()
            let id = try await store.createCollection(label: "T", alias: "", password: password("pw"),
                                                      preferredID: "t").id
            _ = try await store.createItem(in: id, label: "a", attributes: ["n": "1"], secret: secret("1"), replace: false)
            older = try #require(FileManager.default.contents(atPath: dir.file("t")))
            _ = try await store.createItem(in: id, label: "b", attributes: ["n": "2"], secret: secret("2"), replace: false)
            _ = try await store.createCollection(label: "Other", alias: "", password: password("pw"), preferredID: "o")
        }
        var bytes = try #require(FileManager.default.contents(atPath: dir.file("t")))
        switch attack {
        case "flip": bytes[bytes.count - 40] ^= 0x01
        case "truncate": bytes = bytes.prefix(older.count)
        default: bytes = older
        }
        try bytes.write(to: URL(fileURLWithPath: dir.file("t")))
        let store = try await dir.store()
        var failed = await store.unavailableCollections().map(\.id) == ["t"]
        if !failed {
            await #expect(throws: SecretServiceError.self) { try await store.unlock("t", password: password("pw")) }
            failed = await store.unavailableCollections().map(\.id) == ["t"]
        }
        #expect(failed, "the tampered collection was not taken out of service")
        #expect(await !store.collectionIDs().contains("t"))
        #expect(try #require(FileManager.default.contents(atPath: dir.file("t"))) == bytes, "the file was changed")
        #expect(try await store.unlock("o", password: password("pw")), "other collections keep working")
    }

    @Test("a record torn by a crash during an unacknowledged write is ignored and overwritten")
    func tornTail() async throws {
        let dir = try ScratchDirectory()
        do {
            let store = try await dir.store()
            let id = try await store.createCollection(label: "T", alias: "", password: password("pw"),
                                                      preferredID: "t").id
            _ = try await store.createItem(in: id, label: "a", attributes: [:], secret: secret("1"), replace: false)
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: dir.file("t")))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0, 0, 1, 0, 3, 0, 0]))  // a frame header promising more than follows
        try handle.close()
        do {
            // Scoped: the next store is a restart, and a store holds its directory for as long as it lives.
            let store = try await dir.store()
            #expect(try await store.unlock("t", password: password("pw")))
            _ = try await store.createItem(in: "t", label: "b", attributes: [:], secret: secret("2"), replace: false)
        }
        let again = try await dir.store()
        #expect(try await again.unlock("t", password: password("pw")))
        #expect(try await again.itemIDs(in: "t") == ["1", "2"])
    }

    @Test("many rewrites are compacted and every item survives with its latest value")
    func compaction() async throws {
        let dir = try ScratchDirectory()
        do {
            let store = try await dir.store()
            let id = try await store.createCollection(label: "C", alias: "", password: password("pw"),
                                                      preferredID: "c").id
            for n in 0..<20 {
                _ = try await store.createItem(in: id, label: "\(n)", attributes: ["n": "\(n)"], secret: secret("v0"),
                                               replace: false)
            }
            for round in 1...40 {
                for n in 0..<20 {
                    try await store.setSecret(collection: id, item: "\(n + 1)", to: secret("v\(round)"))
                }
            }
        }
        let size = try #require(FileManager.default.attributesOfItem(atPath: dir.file("c"))[.size] as? Int)
        #expect(size < 64 * 1024, "the file was not compacted (\(size) bytes)")
        let store = try await dir.store()
        #expect(try await store.unlock("c", password: password("pw")))
        #expect(try await store.itemIDs(in: "c").count == 20)
        #expect(text(try await store.secret(collection: "c", item: "7")) == "v40")
        #expect(await store.search(["n": "5"]).count == 1)
    }

    @Test("the write that triggers a compaction is in the compacted file")
    func compactingWriteSurvives() async throws {
        let dir = try ScratchDirectory()
        var last = ""
        do {
            let store = try await dir.store()
            let id = try await store.createCollection(label: "C", alias: "", password: password("pw"),
                                                      preferredID: "c").id
            _ = try await store.createItem(in: id, label: "x", attributes: [:], secret: secret("v0"), replace: false)
            var previousSize = 0
            for round in 1...1_000 {
                last = "v\(round)"
                try await store.setSecret(collection: id, item: "1", to: secret(last))
                let size = try #require(FileManager.default.attributesOfItem(atPath: dir.file("c"))[.size] as? Int)
                if size < previousSize { break }  // this write compacted the file
                previousSize = size
            }
        }
        #expect(last != "v1000", "no compaction happened")
        let store = try await dir.store()
        #expect(try await store.unlock("c", password: password("pw")))
        #expect(text(try await store.secret(collection: "c", item: "1")) == last)
    }

    @Test("the directory is 0700 and files 0600")
    func permissions() async throws {
        let dir = try ScratchDirectory()
        let store = SecretStore(directory: dir.path + "/nested/coffer",
                                keyDerivation: Argon2idParameters(iterations: 1, memoryKiB: 256, parallelism: 1))
        _ = try await store.loadCollections()
        _ = try await store.createCollection(label: "P", alias: "", password: password("pw"), preferredID: "p")
        let directoryMode = try FileManager.default.attributesOfItem(atPath: dir.path + "/nested/coffer")[.posixPermissions] as? Int
        let fileMode = try FileManager.default.attributesOfItem(atPath: dir.path + "/nested/coffer/p.coffer")[.posixPermissions] as? Int
        #expect(directoryMode == 0o700 && fileMode == 0o600)
    }
}

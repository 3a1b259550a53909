// SPDX-License-Identifier: Apache-2.0
// The applications always allowed a whole collection: sealed in their own record, kept across restarts, compaction
// and password changes.

import Foundation
import SecretCrypto
import SecretServiceProtocol
@testable import SecretStore
import Testing

@Suite("Collection files: applications allowed a whole collection")
struct CollectionAccessTests {
    @Test("the list is kept across a restart, sealed, and unknown while locked")
    func persists() async throws {
        let dir = try ScratchDirectory()
        do {
            let store = try await dir.store()
            _ = try await store.createCollection(label: "C", alias: "", password: password("pw"), preferredID: "c")
            #expect(try await store.collectionAllowedApplications("c") == [])
            try await store.setCollectionAllowedApplications(["exe:/usr/bin/b@1:2", "flatpak:org.example.B"],
                                                             collection: "c")
        }
        // The identities are not in the file in clear.
        let bytes = try #require(FileManager.default.contents(atPath: dir.file("c")))
        #expect(bytes.range(of: Data("org.example.B".utf8)) == nil, "the list is stored in clear")
        let store = try await dir.store()
        await #expect(throws: SecretServiceError.self) { try await store.collectionAllowedApplications("c") }
        #expect(try await store.unlock("c", password: password("pw")))
        #expect(try await store.collectionAllowedApplications("c") == ["exe:/usr/bin/b@1:2", "flatpak:org.example.B"])
        try await store.setCollectionAllowedApplications([], collection: "c")
        #expect(try await store.collectionAllowedApplications("c") == [], "a stale list was kept")
        try await store.setLocked("c", true)
        await #expect(throws: SecretServiceError.self) { try await store.collectionAllowedApplications("c") }
        let again = try await dir.store()
        #expect(try await again.unlock("c", password: password("pw")))
        #expect(try await again.collectionAllowedApplications("c") == [])
    }

    @Test("a sealed list opens only in the collection it was sealed for")
    func boundToCollection() throws {
        let key = try SecureRandom.secretBytes(count: 32)
        let sealed = try SecretVault(key: key, collectionID: "a").sealCollectionAccess(["exe:/x"])
        #expect(try SecretVault(key: key, collectionID: "a").openCollectionAccess(sealed) == ["exe:/x"])
        #expect(throws: (any Error).self) { try SecretVault(key: key, collectionID: "b").openCollectionAccess(sealed) }
    }

    @Test("compaction and a password change keep the list")
    func compactionAndRekey() async throws {
        let dir = try ScratchDirectory()
        var last: [String] = []
        do {
            let store = try await dir.store()
            _ = try await store.createCollection(label: "C", alias: "", password: password("old"), preferredID: "c")
            var previousSize = 0
            var compacted = false
            for round in 1...1_000 {
                last = ["exe:/round/\(round)"]
                try await store.setCollectionAllowedApplications(last, collection: "c")
                let size = try #require(FileManager.default.attributesOfItem(atPath: dir.file("c"))[.size] as? Int)
                if size < previousSize {
                    compacted = true
                    break
                }
                previousSize = size
            }
            #expect(compacted, "no compaction happened")
            // The compacting write's successor waits for it, then lands in the new file.
            last = ["exe:/after-compaction"]
            try await store.setCollectionAllowedApplications(last, collection: "c")
            #expect(try await store.changePassword(of: "c", from: password("old"), to: password("new")))
        }
        let store = try await dir.store()
        #expect(try await store.unlock("c", password: password("new")))
        #expect(try await store.collectionAllowedApplications("c") == last)
    }

    @Test("an in-memory collection keeps the list while it lives")
    func inMemory() async throws {
        let store = SecretStore()
        let (id, _) = try await store.createCollection(label: "s", alias: "", inMemory: true)
        try await store.setCollectionAllowedApplications(["snap:x"], collection: id)
        #expect(try await store.collectionAllowedApplications(id) == ["snap:x"])
    }
}

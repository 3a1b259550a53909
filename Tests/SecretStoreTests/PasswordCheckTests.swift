// SPDX-License-Identifier: Apache-2.0
// checkPassword: answers for locked and unlocked collections alike, and changes nothing.

import Foundation
import SecretServiceProtocol
@testable import SecretStore
import Testing

@Suite("Password check")
struct PasswordCheckTests {
    @Test("the right password is recognised and a wrong one refused, locked or not; the lock state and file stay")
    func check() async throws {
        let dir = try ScratchDirectory()
        let store = try await dir.store()
        let id = try await store.createCollection(label: "C", alias: "", password: password("right")).id
        let before = try #require(FileManager.default.contents(atPath: dir.file(id)))

        #expect(try await store.checkPassword(of: id, password("right")))
        #expect(try await store.checkPassword(of: id, password("wrong")) == false)
        #expect(try await store.collectionInfo(id).isLocked == false)

        try await store.setLocked(id, true)
        #expect(try await store.checkPassword(of: id, password("wrong")) == false)
        #expect(try await store.checkPassword(of: id, password("right")))
        #expect(try await store.collectionInfo(id).isLocked, "a check does not unlock")
        #expect(FileManager.default.contents(atPath: dir.file(id)) == before, "a check does not write")

        _ = try await store.changePassword(of: id, from: password("right"), to: password("new"))
        #expect(try await store.checkPassword(of: id, password("right")) == false)
        #expect(try await store.checkPassword(of: id, password("new")))
    }

    @Test("collections without a password, and unknown ones, are errors")
    func errors() async throws {
        let dir = try ScratchDirectory()
        let store = try await dir.store()
        _ = try await store.createCollection(label: "M", alias: "", inMemory: true, preferredID: "m")
        await #expect(throws: SecretServiceError.invalidArgs("the collection has no password")) {
            try await store.checkPassword(of: "m", password("x"))
        }
        await #expect(throws: SecretServiceError.self) { try await store.checkPassword(of: "nope", password("x")) }
    }
}

// SPDX-License-Identifier: Apache-2.0
// A synchronized collection's sync state across a password change that re-keys it (docs/SYNC.md, "Re-keying and
// the sync state"). The crash points themselves are rebuilt from real runs in the CofferCLITests suite
// "Synchronized collections: a crash while a password change re-keys the collection".

import Foundation
import SecretCrypto
import SecretServiceProtocol
@testable import SecretStore
import Testing

@Suite("Synchronized collections: the sync state across a re-key")
struct SyncStateRekeyTests {
    static func statePath(_ dir: ScratchDirectory, _ id: String = "login") -> String { dir.path + "/sync/\(id).state" }

    @Test("a re-key leaves the state sealed under the new keys and no prepared state, also when a stale one was there; after a restart the new password opens it and changes reach the journal")
    func rekeyCarriesState() async throws {
        let dir = try ScratchDirectory()
        var (store, folder) = try await SyncJournalWriteTests.setUp(dir)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let enabled = try await store.enableSync(of: "login", password: password("pw"), folder: folder)
        var reader = try FolderReader(root: folder, enabled: enabled, password: "pw")
        _ = try reader.newRecords()
        let next = Self.statePath(dir) + ".next"
        try Data("left by an earlier crash".utf8).write(to: URL(fileURLWithPath: next))
        let before = try Data(contentsOf: URL(fileURLWithPath: Self.statePath(dir)))

        #expect(try await store.passwordChange(of: "login", from: password("pw"), to: password("pw2")) == .rekeyed)
        #expect(!FileManager.default.fileExists(atPath: next))
        #expect(try Data(contentsOf: URL(fileURLWithPath: Self.statePath(dir))) != before)

        store = try await dir.store()
        #expect(try await store.unlock("login", password: password("pw2")))
        _ = try await store.createItem(in: "login", label: "after", attributes: ["k": "2"], secret: secret("s2"),
                                       replace: false)
        #expect(try reader.newRecords().count == 1)
        #expect(reader.itemsByLabel["after"] == "s2")
    }

    @Test("a state that opens with no key the collection holds is not replaced by a prepared state that does not open either; changes are refused, a password change goes ahead, and leaving removes both")
    func unopenableStateStaysRefused() async throws {
        let dir = try ScratchDirectory()
        let (first, folder) = try await SyncJournalWriteTests.setUp(dir)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = try await first.createCollection(label: "Work", alias: "", password: password("pw"), preferredID: "work")
        _ = try await first.enableSync(of: "login", password: password("pw"), folder: folder)
        _ = try await first.enableSync(of: "work", password: password("pw"), folder: folder)
        // Work's state names the local collection it is sealed for: it opens with no key of login's.
        let work = try Data(contentsOf: URL(fileURLWithPath: Self.statePath(dir, "work")))
        try work.write(to: URL(fileURLWithPath: Self.statePath(dir)))
        let next = Self.statePath(dir) + ".next"
        try work.write(to: URL(fileURLWithPath: next))

        let store = try await dir.store()
        #expect(try await store.unlock("login", password: password("pw")))
        await #expect(throws: SecretServiceError.self) {
            _ = try await store.createItem(in: "login", label: "refused", attributes: [:], secret: secret("x"),
                                           replace: false)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: Self.statePath(dir))) == work)
        #expect(try Data(contentsOf: URL(fileURLWithPath: next)) == work)

        // Such a state cannot be carried over, and it does not hold the password hostage.
        #expect(try await store.passwordChange(of: "login", from: password("pw"), to: password("pw2")) == .rekeyed)
        #expect(try Data(contentsOf: URL(fileURLWithPath: Self.statePath(dir))) == work)

        _ = try await store.leaveSync(of: "login")
        #expect(!FileManager.default.fileExists(atPath: Self.statePath(dir)))
        #expect(!FileManager.default.fileExists(atPath: next))
        _ = try await store.createItem(in: "login", label: "local", attributes: [:], secret: secret("y"),
                                       replace: false)
    }
}

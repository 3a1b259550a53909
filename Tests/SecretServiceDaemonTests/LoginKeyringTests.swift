// SPDX-License-Identifier: Apache-2.0
// What each login-password request does to the store's `login` collection, and the outcome it reports.

import Foundation
import Logging
import SecretCrypto
import SecretServiceDaemon
import SecretServiceProtocol
import SecretStore
import Testing

@Suite("Login keyring: unlock, create and change with the login password")
struct LoginKeyringTests {
    /// A store in a scratch directory, its files loaded, and the keyring on it.
    func withKeyring(_ body: (SecretStore, LoginKeyring) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-loginkeyring-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = SecretStore(directory: directory.path,
                                keyDerivation: Argon2idParameters(iterations: 1, memoryKiB: 256, parallelism: 1))
        _ = try await store.loadCollections()
        try await body(store, LoginKeyring(store: store, logger: Logger(label: "test")))
        await store.close()
    }

    func bytes(_ text: String) throws -> SecretBytes { try SecretBytes(copying: Array(text.utf8)) }

    @Test("the first password creates login as the default; later ones unlock it or are reported wrong")
    func unlockOrCreate() async throws {
        try await withKeyring { store, keyring async throws in
            #expect(await keyring.unlockOrCreate(with: try bytes("first")) == .created)
            #expect(await store.resolveAlias(SecretServiceNames.defaultAlias) == LoginKeyring.collectionID)
            // Already unlocked: the password is still checked, so a drifted one is reported.
            #expect(await keyring.unlockOrCreate(with: try bytes("other")) == .wrongPassword)
            #expect(await keyring.unlockOrCreate(with: try bytes("first")) == .unlocked)
            #expect(try await store.setLocked(LoginKeyring.collectionID, true))
            #expect(await keyring.unlockOrCreate(with: try bytes("other")) == .wrongPassword)
            #expect(try await store.collectionInfo(LoginKeyring.collectionID).isLocked)
            #expect(await keyring.unlockOrCreate(with: try bytes("first")) == .unlocked)
            #expect(!(try await store.collectionInfo(LoginKeyring.collectionID).isLocked))
        }
    }

    @Test("an empty password never creates login")
    func emptyPasswordRefused() async throws {
        try await withKeyring { store, keyring async throws in
            #expect(await keyring.unlockOrCreate(with: try SecretBytes(count: 0)) == .refused)
            #expect(!(await store.collectionIDs().contains(LoginKeyring.collectionID)))
        }
    }

    @Test("a change needs the old password and a non-empty new one, and an existing login")
    func change() async throws {
        try await withKeyring { store, keyring async throws in
            #expect(await keyring.changePassword(from: try bytes("a"), to: try bytes("b")) == .unavailable)
            #expect(await keyring.unlockOrCreate(with: try bytes("a")) == .created)
            #expect(await keyring.changePassword(from: try bytes("wrong"), to: try bytes("b")) == .wrongPassword)
            #expect(await keyring.changePassword(from: try bytes("a"), to: try SecretBytes(count: 0)) == .refused)
            #expect(await keyring.changePassword(from: try bytes("a"), to: try bytes("b")) == .changed)
            #expect(try await store.checkPassword(of: LoginKeyring.collectionID, try bytes("b")))
            #expect(!(try await store.checkPassword(of: LoginKeyring.collectionID, try bytes("a"))))
        }
    }
}

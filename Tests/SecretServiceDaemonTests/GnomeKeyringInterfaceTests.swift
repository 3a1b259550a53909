// SPDX-License-Identifier: Apache-2.0
// gnome-keyring's private interface through the router: master passwords in plain and DH sessions, prompts, errors.

import DBusWire
import Foundation
import SecretCrypto
import SecretServiceDaemon
import SecretServiceProtocol
import SecretStore
import Testing

/// A data directory for one test's store, removed when the test lets go of it.
final class TemporaryDataDirectory: Sendable {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-daemon-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// One client session opened through the router, encoding passwords as that client would.
struct ClientSessionKit {
    let path: ObjectPath
    let cipher: DHSessionCipher?

    /// Opens a `plain` or DH session for `caller` (the DH one with a real key exchange on the client side).
    static func open(_ algorithm: String, on h: RouterHarness, for caller: BusName = RouterHarness.first)
        async throws -> ClientSessionKit {
        guard algorithm == SecretServiceNames.dhAlgorithm else {
            return ClientSessionKit(path: try await h.plainSession(for: caller), cipher: nil)
        }
        let keys = try DHKeyPair()
        let body = try await h.ok(service, nil, "OpenSession", [.string(algorithm), .variant(.bytes(keys.publicKey))],
                                  from: caller)
        let serverKey = try #require(body[0].variantValue?.bytes)
        return ClientSessionKit(path: try #require(body[1].objectPath),
                                cipher: try DHSessionCipher(keyPair: keys, peerPublicKey: serverKey))
    }

    /// `text` as a `Secret` struct of this session.
    func secret(_ text: String) throws -> DBusValue {
        guard let cipher else { return plainSecret(path, text) }
        let (iv, ciphertext) = try cipher.encrypt(try SecretBytes(copying: Array(text.utf8)))
        return WireSecret(session: path, parameters: iv, value: ciphertext, contentType: "text/plain").dbusValue
    }
}

let gnomeInternal = SecretServiceNames.gnomeInternalInterface
let denied = "org.gnome.keyring.Error.Denied"
let algorithms = [SecretServiceNames.plainAlgorithm, SecretServiceNames.dhAlgorithm]

/// A router with a data directory, one session of `algorithm`, and a collection "Vault" made with password `pw`.
func vaultHarness(_ algorithm: String, _ dir: TemporaryDataDirectory, prompter: any Prompter = FixedPrompter.autoAccept)
    async throws -> (RouterHarness, ClientSessionKit, ObjectPath) {
    let h = try await RouterHarness(prompter: prompter, dataDirectory: dir.path)
    let session = try await ClientSessionKit.open(algorithm, on: h)
    let body = try await h.ok(service, gnomeInternal, "CreateWithMasterPassword", [
        .variantDictionary([SecretPropertyKeys.collectionLabel: .string("Vault")]), try session.secret("pw"),
    ])
    return (h, session, try #require(body.first?.objectPath))
}

func isLocked(_ h: RouterHarness, _ collection: String) async throws -> Bool {
    try await h.store.collectionInfo(collection).isLocked
}

@Suite("gnome-keyring internal interface")
struct GnomeKeyringInterfaceTests {
    @Test("CreateWithMasterPassword makes an open persistent collection that the password unlocks",
          arguments: algorithms)
    func createAndUnlock(_ algorithm: String) async throws {
        let dir = try TemporaryDataDirectory()
        let (h, session, vault) = try await vaultHarness(algorithm, dir)
        #expect(vault == "/org/freedesktop/secrets/collection/Vault")
        #expect(try await h.store.needsPassword("Vault"))
        #expect(try await isLocked(h, "Vault") == false)
        #expect(try await h.store.collectionInfo("Vault").label == "Vault")
        #expect(FileManager.default.fileExists(atPath: dir.path + "/Vault.coffer"))

        _ = try await h.ok(service, nil, "Lock", [.objectPaths([vault])])
        let wrong = await h.call(service, gnomeInternal, "UnlockWithMasterPassword", [.objectPath(vault),
                                                                                    try session.secret("nope")])
        #expect(wrong.errorName?.rawValue == denied)
        #expect(wrong.error?.message == "The password was invalid")
        #expect(try await isLocked(h, "Vault"))
        _ = try await h.ok(service, gnomeInternal, "UnlockWithMasterPassword", [.objectPath(vault),
                                                                              try session.secret("pw")])
        #expect(try await isLocked(h, "Vault") == false)

        // An open collection still refuses a wrong password, as gnome-keyring does; the member resolves without
        // an interface name too.
        #expect(await h.errorName(service, nil, "UnlockWithMasterPassword", [.objectPath(vault),
                                                                            try session.secret("nope")]) == denied)
        #expect(try await isLocked(h, "Vault") == false)

        // Alias paths name the collection as well.
        _ = try await h.ok(service, nil, "SetAlias", [.string("work"), .objectPath(vault)])
        _ = try await h.ok(service, nil, "Lock", [.objectPaths([vault])])
        _ = try await h.ok(service, gnomeInternal, "UnlockWithMasterPassword", [
            .objectPath("/org/freedesktop/secrets/aliases/work"), try session.secret("pw"),
        ])
        #expect(try await isLocked(h, "Vault") == false)
    }

    @Test("ChangeWithMasterPassword refuses a wrong original; after a change only the new password unlocks",
          arguments: algorithms)
    func changeWithMasterPassword(_ algorithm: String) async throws {
        let dir = try TemporaryDataDirectory()
        let (h, session, vault) = try await vaultHarness(algorithm, dir)
        #expect(await h.errorName(service, gnomeInternal, "ChangeWithMasterPassword", [
            .objectPath(vault), try session.secret("nope"), try session.secret("new"),
        ]) == denied)
        #expect(try await h.store.checkPassword(of: "Vault", try SecretBytes(copying: Array("pw".utf8))))

        _ = try await h.ok(service, nil, "Lock", [.objectPaths([vault])])
        _ = try await h.ok(service, gnomeInternal, "ChangeWithMasterPassword", [
            .objectPath(vault), try session.secret("pw"), try session.secret("new"),
        ])
        #expect(try await isLocked(h, "Vault"), "a change keeps the lock state")
        #expect(await h.errorName(service, gnomeInternal, "UnlockWithMasterPassword", [
            .objectPath(vault), try session.secret("pw"),
        ]) == denied)
        #expect(try await isLocked(h, "Vault"))
        _ = try await h.ok(service, gnomeInternal, "UnlockWithMasterPassword", [
            .objectPath(vault), try session.secret("new"),
        ])
        #expect(try await isLocked(h, "Vault") == false)
    }
}

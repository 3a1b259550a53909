// SPDX-License-Identifier: Apache-2.0
// Several key slots per collection: each opens it, removal takes the wrap out of the file, password changes keep
// every slot working.

import Foundation
import SecretCrypto
import SecretServiceProtocol
@testable import SecretStore
import Testing

@Suite("Collection files: key slots")
struct KeySlotTests {
    static func key() throws -> SecretBytes { try SecureRandom.secretBytes(count: 32) }

    /// A collection `t` holding one item, protected by the password "pw".
    static func collection(in dir: ScratchDirectory) async throws -> SecretStore {
        let store = try await dir.store()
        _ = try await store.createCollection(label: "T", alias: "", password: password("pw"), preferredID: "t")
        _ = try await store.createItem(in: "t", label: "item", attributes: ["k": "v"], secret: secret("s3cret"),
                                       replace: false)
        return store
    }

    /// The secret of the only item of `t`, which must be unlocked.
    static func readItem(_ store: SecretStore) async throws -> String {
        let id = try #require(try await store.search(in: "t", ["k": "v"]).first)
        return text(try await store.secret(collection: "t", item: id))
    }

    static func records(of dir: ScratchDirectory) throws -> [FileRecord] {
        try Journal.parse([UInt8](try #require(FileManager.default.contents(atPath: dir.file("t"))))).frames
            .map(\.record)
    }

    @Test("a new collection's file holds only the format-1 key wrap, so format-1 readers still open it")
    func newFileIsFormatOne() async throws {
        let dir = try ScratchDirectory()
        _ = try await Self.collection(in: dir)
        let records = try Self.records(of: dir)
        #expect(records.count(where: { if case .keyWrap = $0 { true } else { false } }) == 1)
        #expect(!records.contains { if case .keySlot = $0 { true } else { false } })
        let store = try await dir.store()
        #expect(try await store.keySlots(of: "t") == [KeySlotInfo(id: 0, kind: .password)])
    }

    @Test("a file written the format-1 way (one key wrap, sealed as before key slots) unlocks and takes new slots")
    func formatOneFileLoads() async throws {
        let dir = try ScratchDirectory()
        // Written here byte for byte as format 1 wrote it, not through the key-slot code.
        let parameters = Argon2idParameters(iterations: 1, memoryKiB: 256, parallelism: 1)
        let salt = SecureRandom.bytes(count: 16)
        let master = try CollectionKeys.newMaster()
        let keys = try CollectionKeys(master: master, collectionID: "t")
        let kek = try KeyWrapping.keyEncryptionKey(password: password("pw"), salt: salt, parameters: parameters)
        let nonce = SecureRandom.bytes(count: 12)
        var associated = Array("coffer/1 wrap".utf8) + [0, 1] + Array("t".utf8)
        for value in [parameters.iterations, parameters.memoryKiB, parameters.parallelism] {
            associated += withUnsafeBytes(of: value.bigEndian, Array.init)
        }
        associated += salt
        let wrapped = try AES256GCM.seal(master, key: kek, nonce: nonce, associatedData: associated)
        let header = FileHeader(id: "t", created: 1, indexKey: SecureRandom.bytes(count: 32))
        let (bytes, _) = try Journal.encodeFile(
            header: header,
            records: [.keyWrap(KeyWrap(parameters: parameters, salt: salt, nonce: nonce, wrappedKey: wrapped)),
                      .collection(label: "Old", modified: 1)],
            firstSequence: 1, key: keys.authentication)
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: dir.file("t")))

        let store = try await dir.store()
        #expect(try await store.keySlots(of: "t") == [KeySlotInfo(id: 0, kind: .password)])
        #expect(try await !store.unlock("t", password: password("wrong")))
        #expect(try await store.unlock("t", password: password("pw")))
        #expect(try await store.collectionInfo("t").label == "Old")
        let recovery = try Self.key()
        #expect(try await store.addKeySlot(to: "t", authorizedBy: password("pw"), kind: .recovery, secret: recovery) == 1)
        let reopened = try await dir.store()
        #expect(try await reopened.unlock("t", slotKey: recovery))
    }

    @Test("each slot unlocks the collection after a restart; a wrong or short key, or the wrong kind, does not")
    func everySlotUnlocks() async throws {
        let dir = try ScratchDirectory()
        let credential = try Self.key()
        let recovery = try SecureRandom.secretBytes(count: 20)
        do {
            let store = try await Self.collection(in: dir)
            #expect(try await store.addKeySlot(to: "t", authorizedBy: password("pw"), kind: .systemdCredential,
                                               secret: credential) == 1)
            #expect(try await store.addKeySlot(to: "t", authorizedBy: credential, kind: .recovery,
                                               secret: recovery) == 2)
            #expect(try await store.addKeySlot(to: "t", authorizedBy: recovery, kind: .password,
                                               secret: password("second")) == 3)
            #expect(try await store.keySlots(of: "t").map(\.kind) == [.password, .systemdCredential, .recovery,
                                                                         .password])
        }
        let unlocks: [(String, (SecretStore) async throws -> Bool)] = [
            ("password", { try await $0.unlock("t", password: password("pw")) }),
            ("second password", { try await $0.unlock("t", password: password("second")) }),
            ("credential", { try await $0.unlock("t", slotKey: credential) }),
            ("recovery key", { try await $0.unlock("t", slotKey: recovery) }),
        ]
        for (name, unlock) in unlocks {
            let store = try await dir.store()
            #expect(try await store.collectionInfo("t").isLocked)
            #expect(try await unlock(store), "\(name) did not unlock")
            #expect(try await Self.readItem(store) == "s3cret")
        }
        let store = try await dir.store()
        #expect(try await !store.unlock("t", slotKey: try Self.key()), "a random key unlocked")
        #expect(try await !store.unlock("t", slotKey: password("pw")), "the password opened a key slot")
        #expect(try await !store.unlock("t", password: SecretBytes(copying: credential.copyBytes())),
                "a slot key opened as a password")
        #expect(try await !store.unlock("t", slotKey: SecretBytes(copying: credential.copyBytes().prefix(15))))
        #expect(try await store.collectionInfo("t").isLocked)
    }

    @Test("adding a slot needs a secret that opens one; a short key and too many slots are refused; lock state kept")
    func addingIsAuthorized() async throws {
        let dir = try ScratchDirectory()
        let store = try await Self.collection(in: dir)
        _ = try await store.setLocked("t", true)
        #expect(try await store.addKeySlot(to: "t", authorizedBy: password("wrong"), kind: .recovery,
                                           secret: try Self.key()) == nil)
        await #expect(throws: SecretServiceError.self) {
            _ = try await store.addKeySlot(to: "t", authorizedBy: password("pw"), kind: .recovery,
                                           secret: SecretBytes(copying: [1, 2, 3]))
        }
        #expect(try await store.keySlots(of: "t").count == 1)
        #expect(try await store.addKeySlot(to: "t", authorizedBy: password("pw"), kind: .recovery,
                                           secret: try Self.key()) == 1)
        #expect(try await store.collectionInfo("t").isLocked, "adding a slot left the collection unlocked")
        for _ in 2..<KeySlot.maximumCount {
            _ = try await store.addKeySlot(to: "t", authorizedBy: password("pw"), kind: .recovery,
                                           secret: try Self.key())
        }
        let full = await #expect(throws: SecretServiceError.self) {
            _ = try await store.addKeySlot(to: "t", authorizedBy: password("pw"), kind: .recovery,
                                           secret: try Self.key())
        }
        #expect({ if case .limitsExceeded? = full { true } else { false } }())
    }

    @Test("a removed slot no longer unlocks and its wrap is gone from the file; the last slot cannot be removed")
    func removal() async throws {
        let dir = try ScratchDirectory()
        let recovery = try Self.key()
        do {
            let store = try await Self.collection(in: dir)
            #expect(try await store.addKeySlot(to: "t", authorizedBy: password("pw"), kind: .recovery,
                                               secret: recovery) == 1)
            #expect(try await store.removeKeySlot(1, from: "t", authorizedBy: password("wrong")) == .refused)
            let unknown = await #expect(throws: SecretServiceError.self) {
                _ = try await store.removeKeySlot(7, from: "t", authorizedBy: password("pw"))
            }
            #expect({ if case .noSuchObject? = unknown { true } else { false } }())
            // Every remaining slot (the password that authorised it) can follow: a new master key.
            #expect(try await store.removeKeySlot(1, from: "t", authorizedBy: password("pw")) == .rekeyed)
            #expect(!(try Self.records(of: dir)).contains { if case .keySlot = $0 { true } else { false } })
            let last = await #expect(throws: SecretServiceError.self) {
                _ = try await store.removeKeySlot(0, from: "t", authorizedBy: password("pw"))
            }
            #expect({ if case .notSupported? = last { true } else { false } }())
        }
        let store = try await dir.store()
        #expect(try await !store.unlock("t", slotKey: recovery))
        #expect(try await store.unlock("t", password: password("pw")))
        #expect(try await Self.readItem(store) == "s3cret")
        #expect(try await store.keySlots(of: "t") == [KeySlotInfo(id: 0, kind: .password)])
    }

    @Test("removing the first password leaves a file that opens with the other slots only")
    func removingSlotZero() async throws {
        let dir = try ScratchDirectory()
        let credential = try Self.key()
        do {
            let store = try await Self.collection(in: dir)
            _ = try await store.addKeySlot(to: "t", authorizedBy: password("pw"), kind: .systemdCredential,
                                           secret: credential)
            #expect(try await store.removeKeySlot(0, from: "t", authorizedBy: credential) == .rekeyed)
        }
        #expect(!(try Self.records(of: dir)).contains { if case .keyWrap = $0 { true } else { false } })
        let store = try await dir.store()
        #expect(try await !store.unlock("t", password: password("pw")))
        #expect(try await store.unlock("t", slotKey: credential))
        #expect(try await Self.readItem(store) == "s3cret")
    }

    @Test("a password change re-keys and re-wraps a credential slot whose key cofferd holds")
    func passwordChangeRewrapsHeldCredential() async throws {
        let dir = try ScratchDirectory()
        let credential = try Self.key()
        let backup: Data
        do {
            // A fresh store that unlocks with the credential (as cofferd does at start) holds its key.
            do {
                let store = try await Self.collection(in: dir)
                _ = try await store.addKeySlot(to: "t", authorizedBy: password("pw"), kind: .systemdCredential,
                                               secret: credential)
            }
            let store = try await dir.store()
            #expect(try await store.unlock("t", slotKey: credential))
            backup = try #require(FileManager.default.contents(atPath: dir.file("t")))
            #expect(try await store.passwordChange(of: "t", from: password("pw"), to: password("new")) == .rekeyed)
        }
        let current = try #require(FileManager.default.contents(atPath: dir.file("t")))
        let oldMaster = try #require(try PasswordChangeTests.master(in: backup, password: "pw"))
        let newMaster = try #require(try PasswordChangeTests.master(in: current, password: "new"))
        #expect(!oldMaster.constantTimeEquals(newMaster), "the master key was kept")
        let store = try await dir.store()
        #expect(try await !store.unlock("t", password: password("pw")))
        #expect(try await store.unlock("t", slotKey: credential), "the credential was shut out")
        #expect(try await Self.readItem(store) == "s3cret")
    }

    @Test("a password change keeps the master key, and the slots it cannot re-wrap working, and says which")
    func passwordChangeKeepsUnheldSlots() async throws {
        let dir = try ScratchDirectory()
        let credential = try Self.key()
        let recovery = try Self.key()
        do {
            let store = try await Self.collection(in: dir)
            _ = try await store.addKeySlot(to: "t", authorizedBy: password("pw"), kind: .systemdCredential,
                                           secret: credential)
            _ = try await store.addKeySlot(to: "t", authorizedBy: password("pw"), kind: .recovery, secret: recovery)
        }
        do {
            // This store never saw the credential: neither it nor the recovery key can be re-wrapped.
            let store = try await dir.store()
            #expect(try await store.passwordChange(of: "t", from: password("wrong"), to: password("x")) == .refused)
            #expect(try await store.passwordChange(of: "t", from: password("pw"), to: password("new"))
                == .masterKeyKept(unchangedSlots: [KeySlotInfo(id: 1, kind: .systemdCredential),
                                                   KeySlotInfo(id: 2, kind: .recovery)]))
            #expect(try await store.collectionInfo("t").isLocked, "the change left the collection unlocked")
        }
        // The old password's wrap is gone from the current file.
        let current = try #require(FileManager.default.contents(atPath: dir.file("t")))
        #expect(try PasswordChangeTests.master(in: current, password: "pw") == nil)
        for (name, unlock) in [("new password", { (s: SecretStore) in try await s.unlock("t", password: password("new")) }),
                               ("credential", { try await $0.unlock("t", slotKey: credential) }),
                               ("recovery key", { try await $0.unlock("t", slotKey: recovery) })]
            as [(String, (SecretStore) async throws -> Bool)] {
            let store = try await dir.store()
            #expect(try await unlock(store), "\(name) no longer unlocks")
            #expect(try await Self.readItem(store) == "s3cret")
        }
        // Without the recovery key, and with the credential's key at hand, the next change re-keys.
        let store = try await dir.store()
        #expect(try await store.unlock("t", slotKey: credential))
        #expect(try await store.removeKeySlot(2, from: "t", authorizedBy: password("new")) == .rekeyed)
        #expect(try await store.passwordChange(of: "t", from: password("new"), to: password("newer")) == .rekeyed)
        let reopened = try await dir.store()
        #expect(try await reopened.unlock("t", slotKey: credential))
        #expect(try await Self.readItem(reopened) == "s3cret")
    }

    @Test("a slot whose stored parameters were altered opens nothing; slot counts past the bounds are refused")
    func alteredSlotIsRefused() async throws {
        let dir = try ScratchDirectory()
        let recovery = try Self.key()
        do {
            let store = try await Self.collection(in: dir)
            _ = try await store.addKeySlot(to: "t", authorizedBy: password("pw"), kind: .recovery, secret: recovery)
        }
        // Relabel the recovery slot as a systemd credential: its kind is authenticated with the key it wraps.
        var bytes = [UInt8](try #require(FileManager.default.contents(atPath: dir.file("t"))))
        let parsed = try Journal.parse(bytes)
        let frame = try #require(parsed.frames.first { if case .keySlot = $0.record { true } else { false } })
        guard case .keySlot(let slot) = frame.record else { return }
        var altered = slot
        altered.kind = .systemdCredential
        let original = FileRecord.keySlot(slot).encodeBody(sequence: frame.sequence)
        let changed = FileRecord.keySlot(altered).encodeBody(sequence: frame.sequence)
        let at = try #require(bytes.indices.first { bytes[$0...].starts(with: original) })
        bytes.replaceSubrange(at..<(at + original.count), with: changed)
        try Data(bytes).write(to: URL(fileURLWithPath: dir.file("t")))
        let store = try await dir.store()
        #expect(try await !store.unlock("t", slotKey: recovery))
        var many: [UInt32: KeySlot] = [:]
        for id in 0...UInt32(KeySlot.maximumCount) { many[id] = KeySlot(id: id, kind: .recovery, parameters: nil,
                                                                        salt: [], nonce: [], wrappedKey: []) }
        #expect(throws: FormatError.self) { _ = try SecretStore.checkedSlots(many) }
    }
}

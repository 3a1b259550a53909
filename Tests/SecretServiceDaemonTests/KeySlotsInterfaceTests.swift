// SPDX-License-Identifier: Apache-2.0
// io.coffer.KeySlots through the router: slots listed, added and removed with authorisation, errors by name.

import DBusWire
import SecretCrypto
import SecretServiceDaemon
import SecretServiceProtocol
import SecretStore
import Testing

@Suite("io.coffer.KeySlots")
struct KeySlotsInterfaceTests {
    let keySlots = SecretServiceNames.keySlotsInterface

    /// A 32-byte key as a `Secret` struct of `session` (the plain session carries the bytes as they are).
    static func keySecret(_ session: ClientSessionKit, _ key: [UInt8]) -> DBusValue {
        WireSecret(session: session.path, parameters: [], value: key, contentType: "application/octet-stream")
            .dbusValue
    }

    static func slots(_ body: [DBusValue]) -> [String] {
        guard case .array(_, let entries)? = body.first else { return [] }
        return entries.compactMap { entry in
            guard case .structure(let fields) = entry, let id = fields.first?.uint32, let kind = fields.last?.string
            else { return nil }
            return "\(id) \(kind)"
        }
    }

    @Test("slots are listed, added with a secret that opens one, and removed; a slot key unlocks")
    func addListRemove() async throws {
        let dir = try TemporaryDataDirectory()
        let (h, session, vault) = try await vaultHarness(SecretServiceNames.plainAlgorithm, dir)
        let key = SecureRandom.bytes(count: 32)
        #expect(Self.slots(try await h.ok(service, keySlots, "ListKeySlots", [.objectPath(vault)])) == ["0 password"])
        #expect(await h.errorName(service, keySlots, "AddKeySlot", [
            .objectPath(vault), try session.secret("not pw"), .string("recovery"), Self.keySecret(session, key),
        ]) == denied)
        let added = try await h.ok(service, keySlots, "AddKeySlot", [
            .objectPath(vault), try session.secret("pw"), .string("recovery"), Self.keySecret(session, key),
        ])
        #expect(added.first?.uint32 == 1)
        #expect(Self.slots(try await h.ok(service, keySlots, "ListKeySlots", [.objectPath(vault)]))
            == ["0 password", "1 recovery"])

        _ = try await h.store.setLocked("Vault", true)
        #expect(await h.errorName(service, keySlots, "UnlockWithKeySlot", [
            .objectPath(vault), Self.keySecret(session, SecureRandom.bytes(count: 32)),
        ]) == denied)
        #expect(try await isLocked(h, "Vault"))
        _ = try await h.ok(service, keySlots, "UnlockWithKeySlot", [.objectPath(vault), Self.keySecret(session, key)])
        #expect(try await isLocked(h, "Vault") == false)
        // Unlocked, a wrong key is still refused (a user checking a recovery key on paper learns the truth).
        #expect(await h.errorName(service, keySlots, "UnlockWithKeySlot", [
            .objectPath(vault), Self.keySecret(session, SecureRandom.bytes(count: 32)),
        ]) == denied)

        let removed = try await h.ok(service, keySlots, "RemoveKeySlot", [
            .objectPath(vault), Self.keySecret(session, key), .uint32(0),
        ])
        #expect(removed.first?.bool == true, "the only remaining slot authorised the removal, so it re-keys")
        #expect(Self.slots(try await h.ok(service, keySlots, "ListKeySlots", [.objectPath(vault)])) == ["1 recovery"])
        #expect(await h.errorName(service, keySlots, "RemoveKeySlot", [
            .objectPath(vault), Self.keySecret(session, key), .uint32(1),
        ]) == "org.freedesktop.DBus.Error.NotSupported")
    }

    @Test("ChangePassword re-keys without other slots, keeps the master key and names the slots with a recovery key")
    func changePasswordReportsOutcome() async throws {
        let dir = try TemporaryDataDirectory()
        let (h, session, vault) = try await vaultHarness(SecretServiceNames.plainAlgorithm, dir)
        #expect(await h.errorName(service, keySlots, "ChangePassword", [
            .objectPath(vault), try session.secret("wrong"), try session.secret("x"),
        ]) == denied)
        let alone = try await h.ok(service, keySlots, "ChangePassword", [
            .objectPath(vault), try session.secret("pw"), try session.secret("pw2"),
        ])
        #expect(alone.first?.bool == true)
        _ = try await h.ok(service, keySlots, "AddKeySlot", [
            .objectPath(vault), try session.secret("pw2"), .string("recovery"),
            Self.keySecret(session, SecureRandom.bytes(count: 20)),
        ])
        let kept = try await h.ok(service, keySlots, "ChangePassword", [
            .objectPath(vault), try session.secret("pw2"), try session.secret("pw3"),
        ])
        #expect(kept.first?.bool == false)
        #expect(kept.last == .array(.uint32, [.uint32(1)]))
    }

    @Test("bad input: unknown kind, short key, unknown slot or collection, in-memory collection, foreign session")
    func errors() async throws {
        let dir = try TemporaryDataDirectory()
        let (h, session, vault) = try await vaultHarness(SecretServiceNames.plainAlgorithm, dir)
        let key = SecureRandom.bytes(count: 32)
        #expect(await h.errorName(service, keySlots, "AddKeySlot", [
            .objectPath(vault), try session.secret("pw"), .string("fingerprint"), Self.keySecret(session, key),
        ]) == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(await h.errorName(service, keySlots, "AddKeySlot", [
            .objectPath(vault), try session.secret("pw"), .string("recovery"), Self.keySecret(session, [1, 2, 3]),
        ]) == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(await h.errorName(service, keySlots, "RemoveKeySlot", [
            .objectPath(vault), try session.secret("pw"), .uint32(5),
        ]) == SecretErrorNames.noSuchObject.rawValue)
        #expect(await h.errorName(service, keySlots, "ListKeySlots", [
            .objectPath("/org/freedesktop/secrets/collection/nothere"),
        ]) == SecretErrorNames.noSuchObject.rawValue)
        #expect(await h.errorName(service, keySlots, "ListKeySlots", [
            .objectPath("/org/freedesktop/secrets/collection/session"),
        ]) == "org.freedesktop.DBus.Error.NotSupported")
        let foreign = try await ClientSessionKit.open(SecretServiceNames.plainAlgorithm, on: h, for: RouterHarness.second)
        #expect(await h.errorName(service, keySlots, "AddKeySlot", [
            .objectPath(vault), try foreign.secret("pw"), .string("recovery"), Self.keySecret(foreign, key),
        ]) == SecretErrorNames.noSession.rawValue)
        #expect(Self.slots(try await h.ok(service, keySlots, "ListKeySlots", [.objectPath(vault)])) == ["0 password"])
    }
}

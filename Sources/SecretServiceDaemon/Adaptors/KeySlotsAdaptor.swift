// io.coffer.KeySlots
// SPDX-License-Identifier: Apache-2.0
// Coffer's key-slot interface: list, add and remove a collection's key slots, and unlock with a slot's key.

import DBusWire
import Logging
import SecretCrypto
import SecretServiceProtocol
import SecretStore

/// Serves `io.coffer.KeySlots` on `/org/freedesktop/secrets` (`dbus/io.coffer.KeySlots.xml`).
///
/// Keys and passwords arrive as `Secret` structs encoded with one of the caller's sessions, decoded as the
/// gnome-keyring interface decodes master passwords (and before the collection is looked up, so a foreign session
/// is NoSession whatever the path). Adding and removing take a secret that opens an existing slot: a client that
/// merely talks to cofferd while the collection is unlocked must not be able to leave a key behind or take the
/// user's recovery key away.
struct KeySlotsAdaptor {
    let context: DaemonContext

    /// `io.coffer.KeySlots`: listing, adding and removing a collection's key slots, and unlocking with a slot's key,
    /// for `coffer key-slots` and `coffer unlock-keychain --recovery-key`. It lives beside
    /// `org.freedesktop.Secret.Service` on `/org/freedesktop/secrets`; `dbus/io.coffer.KeySlots.xml` must agree with
    /// it (a test compares them).
    static let interface = ServedInterface(
        SecretServiceNames.keySlotsInterface, adaptor: KeySlotsAdaptor.init,
        methods: [
            AdaptorMethod("ListKeySlots", in: [.init("collection", .objectPath)],
                          out: [.init("slots", .array(.structure([.uint32, .string])))]) { adaptor, call in
                try await adaptor.list(call.args.objectPath(0))
            },
            AdaptorMethod("AddKeySlot", in: [
                .init("collection", .objectPath), .init("current", SecretInterfaces.secret), .init("kind", .string),
                .init("key", SecretInterfaces.secret),
            ], out: [.init("slot", .uint32)]) { adaptor, call in
                let args = call.args
                return try await adaptor.add(args.objectPath(0), current: args.secret(1), kind: args.string(2),
                                             key: args.secret(3), caller: call.caller)
            },
            AdaptorMethod("RemoveKeySlot", in: [
                .init("collection", .objectPath), .init("current", SecretInterfaces.secret), .init("slot", .uint32),
            ], out: [.init("rekeyed", .boolean), .init("unchanged", .array(.uint32))]) { adaptor, call in
                let args = call.args
                return try await adaptor.remove(args.objectPath(0), current: args.secret(1), slot: args.uint32(2),
                                                caller: call.caller)
            },
            AdaptorMethod("ChangePassword", in: [
                .init("collection", .objectPath), .init("original", SecretInterfaces.secret),
                .init("password", SecretInterfaces.secret),
            ], out: [.init("rekeyed", .boolean), .init("unchanged", .array(.uint32))]) { adaptor, call in
                let args = call.args
                return try await adaptor.changePassword(args.objectPath(0), original: args.secret(1),
                                                        password: args.secret(2), caller: call.caller)
            },
            AdaptorMethod("UnlockWithKeySlot",
                          in: [.init("collection", .objectPath), .init("key", SecretInterfaces.secret)]) { adaptor, call in
                try await adaptor.unlock(call.args.objectPath(0), key: call.args.secret(1), caller: call.caller)
            },
        ])

    // MARK: - Methods

    /// `ListKeySlots(o collection) → a(us)`.
    private func list(_ path: ObjectPath) async throws(SecretServiceError) -> HandlerResult {
        let id = try await GnomeKeyringAdaptor(context: context).passwordCollection(at: path)
        let slots = try await context.store.keySlots(of: id)
        return HandlerResult([.array(.structure([.uint32, .string]),
                                     slots.map { .structure([.uint32($0.id), .string($0.kind.name)]) })])
    }

    /// `AddKeySlot(o collection, (oayays) current, s kind, (oayays) key) → u`.
    private func add(_ path: ObjectPath, current: WireSecret, kind name: String, key: WireSecret, caller: BusName)
        async throws(SecretServiceError) -> HandlerResult {
        let currentSecret = try await decode(current, caller: caller)
        let keySecret = try await decode(key, caller: caller)
        guard let kind = KeySlotKind(name: name) else {
            throw .invalidArgs("unknown key slot kind '\(name)' (password, systemd-credential or recovery)")
        }
        let id = try await GnomeKeyringAdaptor(context: context).passwordCollection(at: path)
        guard let slot = try await context.store.addKeySlot(to: id, authorizedBy: currentSecret, kind: kind,
                                                            secret: keySecret)
        else { throw denied(id) }
        context.logger.notice("key slot added", metadata: ["secret.collection": "\(id)", "slot": "\(slot)",
                                                            "kind": "\(kind.name)"])
        return HandlerResult([.uint32(slot)])
    }

    /// `RemoveKeySlot(o collection, (oayays) current, u slot) → (b rekeyed, au unchanged)`.
    private func remove(_ path: ObjectPath, current: WireSecret, slot: UInt32, caller: BusName)
        async throws(SecretServiceError) -> HandlerResult {
        let currentSecret = try await decode(current, caller: caller)
        let id = try await GnomeKeyringAdaptor(context: context).passwordCollection(at: path)
        let outcome = try await context.store.removeKeySlot(slot, from: id, authorizedBy: currentSecret)
        let result = try reply(outcome, id: id)
        context.logger.notice("key slot removed", metadata: ["secret.collection": "\(id)", "slot": "\(slot)"])
        return result
    }

    /// `ChangePassword(o collection, (oayays) original, (oayays) password) → (b rekeyed, au unchanged)`: what
    /// `ChangeWithMasterPassword` does, with the outcome it cannot report.
    private func changePassword(_ path: ObjectPath, original: WireSecret, password: WireSecret, caller: BusName)
        async throws(SecretServiceError) -> HandlerResult {
        let old = try await decode(original, caller: caller)
        let new = try await decode(password, caller: caller)
        let id = try await GnomeKeyringAdaptor(context: context).passwordCollection(at: path)
        return try reply(try await context.store.passwordChange(of: id, from: old, to: new), id: id)
    }

    /// `(b rekeyed, au unchanged)` for an outcome; `Denied` for a refusal.
    private func reply(_ outcome: KeyChangeOutcome, id: String) throws(SecretServiceError) -> HandlerResult {
        let unchanged: [KeySlotInfo]
        switch outcome {
        case .refused: throw denied(id)
        case .rekeyed: unchanged = []
        case .masterKeyKept(let slots): unchanged = slots
        }
        return HandlerResult([.boolean(unchanged.isEmpty), .array(.uint32, unchanged.map { .uint32($0.id) })])
    }

    /// `UnlockWithKeySlot(o collection, (oayays) key)`. An unlocked collection still refuses a wrong key, as
    /// `UnlockWithMasterPassword` does, so a user can check a recovery key kept on paper.
    private func unlock(_ path: ObjectPath, key: WireSecret, caller: BusName) async throws(SecretServiceError)
        -> HandlerResult {
        let secret = try await decode(key, caller: caller)
        let id = try await GnomeKeyringAdaptor(context: context).passwordCollection(at: path)
        let store = context.store
        let accepted = try await store.collectionInfo(id).isLocked
            ? try await store.unlock(id, slotKey: secret) : try await store.checkSlotKey(of: id, secret)
        guard accepted else { throw denied(id) }
        return HandlerResult()
    }

    // MARK: - Shared steps

    private func decode(_ wire: WireSecret, caller: BusName) async throws(SecretServiceError) -> SecretBytes {
        let session = try await context.session(at: wire.session, caller: caller)
        return try session.decode(wire).value
    }

    private func denied(_ id: String) -> SecretServiceError {
        context.logger.notice("a key slot secret was refused", metadata: ["secret.collection": "\(id)"])
        return .denied("the password or key opens no key slot of this collection")
    }
}

// org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface
// SPDX-License-Identifier: Apache-2.0
// gnome-keyring's private interface: create, unlock and re-key password collections with passwords the caller sends.

import DBusWire
import Logging
import SecretCrypto
import SecretServiceProtocol
import SecretStore

/// Serves gnome-keyring's private master-password interface on `/org/freedesktop/secrets`, for Seahorse and headless
/// scripts.
///
/// Passwords arrive as `Secret` structs encoded with one of the caller's sessions and are decoded as
/// `Item.SetSecret` decodes secrets. The answers follow gnome-keyring's `daemon/dbus/gkd-secret-service.c`: the
/// secrets are decoded before the collection is looked up (so a foreign session is NoSession whatever the path), an
/// unknown collection is NoSuchObject, and a wrong password is `org.gnome.keyring.Error.Denied` "The password was
/// invalid" (`gkd_secret_propagate_error`). Collections without a password are NotSupported: there is nothing to
/// unlock or change.
struct GnomeKeyringAdaptor {
    let context: DaemonContext

    /// gnome-keyring's message for a wrong password; scripts may match on it.
    static let wrongPassword = "The password was invalid"

    /// gnome-keyring's `org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface`: creating, unlocking and re-keying
    /// password collections with passwords the caller supplies, for Seahorse and headless scripts. It lives beside
    /// `org.freedesktop.Secret.Service` on `/org/freedesktop/secrets`;
    /// `dbus/org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface.xml` must agree with it (a test compares them).
    /// Every member takes collections by path, so each waits for a start-up unlock under way.
    static let interface = ServedInterface(
        SecretServiceNames.gnomeInternalInterface, adaptor: GnomeKeyringAdaptor.init,
        methods: [
            AdaptorMethod("ChangeWithMasterPassword", in: [
                .init("collection", .objectPath), .init("original", SecretInterfaces.secret),
                .init("master", SecretInterfaces.secret),
            ], waitsForUnlocks: true) { adaptor, call in
                try await adaptor.changeWithMasterPassword(call.args.objectPath(0), original: call.args.secret(1),
                                                           master: call.args.secret(2), caller: call.caller)
            },
            AdaptorMethod("ChangeWithPrompt", in: [.init("collection", .objectPath)],
                          out: [.init("prompt", .objectPath)], waitsForUnlocks: true) { adaptor, call in
                try await adaptor.changeWithPrompt(call.args.objectPath(0), caller: call.caller)
            },
            AdaptorMethod("CreateWithMasterPassword",
                          in: [.init("attributes", SecretInterfaces.propertyMap),
                               .init("master", SecretInterfaces.secret)],
                          out: [.init("collection", .objectPath)], waitsForUnlocks: true) { adaptor, call in
                try await adaptor.createWithMasterPassword(properties: call.args.properties(0),
                                                           master: call.args.secret(1), caller: call.caller)
            },
            AdaptorMethod("UnlockWithMasterPassword",
                          in: [.init("collection", .objectPath), .init("master", SecretInterfaces.secret)],
                          waitsForUnlocks: true) { adaptor, call in
                try await adaptor.unlockWithMasterPassword(call.args.objectPath(0), master: call.args.secret(1),
                                                           caller: call.caller)
            },
        ])

    // MARK: - Methods

    /// `CreateWithMasterPassword(a{sv} attributes, (oayays) master) → o`: a persistent collection protected by
    /// `master`, unlocked, with no prompt. The label comes from the same keys `CreateCollection` reads; gnome-keyring
    /// takes no alias here, and neither do we.
    private func createWithMasterPassword(properties: [String: DBusValue], master: WireSecret, caller: BusName)
        async throws(SecretServiceError) -> HandlerResult {
        let label = try ServiceAdaptor.collectionLabel(in: properties)
        let password = try await decode(master, caller: caller)
        guard context.store.keepsFiles else {
            throw .notSupported("cofferd runs without a data directory and cannot keep password-protected collections")
        }
        let (id, _) = try await context.store.createCollection(label: label, alias: "", password: password)
        return HandlerResult([.objectPath(Paths.collection(id))])
    }

    /// `UnlockWithMasterPassword(o collection, (oayays) master)`.
    private func unlockWithMasterPassword(_ path: ObjectPath, master: WireSecret, caller: BusName)
        async throws(SecretServiceError) -> HandlerResult {
        let password = try await decode(master, caller: caller)
        let id = try await passwordCollection(at: path)
        let store = context.store
        let accepted: Bool
        if try await store.collectionInfo(id, countingItemTimes: false).isLocked {
            accepted = try await store.unlock(id, password: password)
        } else {
            // Unlocking an open collection changes nothing, but gnome-keyring still refuses a wrong password there,
            // and scripts use this call to test one.
            accepted = try await store.checkPassword(of: id, password)
        }
        guard accepted else { throw denied(id) }
        return HandlerResult()
    }

    /// `ChangeWithMasterPassword(o collection, (oayays) original, (oayays) master)`: changes the password slot
    /// `original` opens to `master` (a new master key when every other key slot can follow; see
    /// ``SecretStore/passwordChange(of:from:to:)``); the collection keeps its lock state.
    private func changeWithMasterPassword(_ path: ObjectPath, original: WireSecret, master: WireSecret,
                                          caller: BusName) async throws(SecretServiceError) -> HandlerResult {
        let old = try await decode(original, caller: caller)
        let new = try await decode(master, caller: caller)
        let id = try await passwordCollection(at: path)
        guard try await context.store.changePassword(of: id, from: old, to: new) else { throw denied(id) }
        return HandlerResult()
    }

    // MARK: - Shared steps

    /// The password a `Secret` struct carries, decoded with the caller's session it names.
    /// - Throws: `noSession` when the session is not one of the caller's; `invalidArgs` when it does not decrypt.
    private func decode(_ wire: WireSecret, caller: BusName) async throws(SecretServiceError) -> SecretBytes {
        let session = try await context.session(at: wire.session, caller: caller)
        return try session.decode(wire).value
    }

    /// The password-protected collection `path` names, directly or through an alias.
    /// - Throws: `noSuchObject` for an unknown collection; `notSupported` for one kept in memory without a password.
    func passwordCollection(at path: ObjectPath) async throws(SecretServiceError) -> String {
        guard let id = await context.collectionID(for: path) else {
            throw .noSuchObject("The collection does not exist")
        }
        guard try await context.store.needsPassword(id) else {
            throw .notSupported("the collection '\(id)' lives in memory and has no password to unlock or change")
        }
        return id
    }

    private func denied(_ id: String) -> SecretServiceError {
        context.logger.notice("a master password was refused", metadata: ["secret.collection": "\(id)"])
        return .denied(Self.wrongPassword)
    }
}

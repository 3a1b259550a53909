// io.coffer.Sync
// SPDX-License-Identifier: Apache-2.0
// Coffer's interface for synchronized collections: making a collection synchronized through a folder, joining one
// made on another machine, and leaving one.

import DBusWire
import Logging
import SecretServiceProtocol
import SecretStore

/// Serves `io.coffer.Sync` on `/org/freedesktop/secrets` (`dbus/io.coffer.Sync.xml`, docs/SYNC.md).
///
/// The password arrives as a `Secret` struct encoded with one of the caller's sessions, decoded before the
/// collection is looked up, as `io.coffer.KeySlots` does. Enabling asks for it even when the collection is
/// unlocked: it is what the wrap in the folder opens with, and a client that merely talks to cofferd while the
/// collection is unlocked must not be able to copy its items into a folder of its choosing.
struct SyncAdaptor {
    let context: DaemonContext

    /// `io.coffer.Sync`, for `coffer sync`. It lives beside `org.freedesktop.Secret.Service` on
    /// `/org/freedesktop/secrets`; `dbus/io.coffer.Sync.xml` must agree with it (a test compares them).
    static let interface = ServedInterface(
        SecretServiceNames.syncInterface, adaptor: SyncAdaptor.init,
        methods: [
            AdaptorMethod("Enable", in: [
                .init("collection", .objectPath), .init("password", SecretInterfaces.secret), .init("folder", .string),
            ], out: [.init("sync_collection", .string), .init("device", .string)]) { adaptor, call in
                let args = call.args
                return try await adaptor.enable(args.objectPath(0), password: args.secret(1), folder: args.string(2),
                                                caller: call.caller)
            },
            AdaptorMethod("Join", in: [
                .init("folder", .string), .init("sync_collection", .string),
                .init("password", SecretInterfaces.secret), .init("label", .string),
            ], out: [
                .init("collection", .objectPath), .init("sync_collection", .string), .init("device", .string),
            ]) { adaptor, call in
                let args = call.args
                return try await adaptor.join(folder: args.string(0), collection: args.string(1),
                                              password: args.secret(2), label: args.string(3), caller: call.caller)
            },
            AdaptorMethod("Synchronized", in: [], out: [.init("collections", .array(.objectPath))]) { adaptor, _ in
                await adaptor.synchronized()
            },
            AdaptorMethod("Leave", in: [.init("collection", .objectPath)], out: [
                .init("sync_collection", .string), .init("device", .string), .init("folder", .string),
            ]) { adaptor, call in
                try await adaptor.leave(call.args.objectPath(0), caller: call.caller)
            },
            AdaptorMethod("SetAside", in: [.init("sync_collection", .string)], out: [
                .init("collection", .string), .init("journals", .dictionary(key: .string, value: .string)),
            ]) { adaptor, call in
                try await adaptor.setAside(call.args.string(0))
            },
        ])

    /// `Enable(o collection, (oayays) password, s folder) → (s sync_collection, s device)`.
    private func enable(_ path: ObjectPath, password: WireSecret, folder: String, caller: BusName)
        async throws(SecretServiceError) -> HandlerResult {
        let session = try await context.session(at: password.session, caller: caller)
        let secret = try session.decode(password).value
        let id = try await GnomeKeyringAdaptor(context: context).passwordCollection(at: path)
        let enabled = try await context.store.enableSync(of: id, password: secret, folder: folder)
        context.logger.notice("a collection was made synchronized", metadata: [
            "secret.collection": "\(id)", "dbus.sender": "\(caller.rawValue)",
        ])
        return HandlerResult([.string(enabled.collection), .string(enabled.device)])
    }

    /// `Synchronized() → (ao collections)`. It names no folder and no id, only which of the caller's collections
    /// travel, so it needs no password: the Keychain library asks it to route `kSecAttrSynchronizable` items.
    private func synchronized() async -> HandlerResult {
        let paths = await context.store.synchronizedCollectionIDs().map {
            DBusValue.objectPath(SecretObjectPath.collection($0).objectPath)
        }
        return HandlerResult([.array(.objectPath, paths)])
    }

    /// `Leave(o collection) → (s sync_collection, s device, s folder)`. Asks no password: leaving reveals
    /// nothing and copies nothing, and the items stay here.
    private func leave(_ path: ObjectPath, caller: BusName) async throws(SecretServiceError) -> HandlerResult {
        guard let id = await context.collectionID(for: path) else {
            throw .noSuchObject("The collection does not exist")
        }
        let left = try await context.store.leaveSync(of: id)
        context.logger.notice("a collection left synchronization", metadata: [
            "secret.collection": "\(id)", "dbus.sender": "\(caller.rawValue)",
        ])
        return HandlerResult([.string(left.collection), .string(left.device), .string(left.folder)])
    }

    /// `SetAside(s sync_collection) → (s collection, a{ss} journals)`.
    private func setAside(_ syncCollection: String) async throws(SecretServiceError) -> HandlerResult {
        guard let found = await context.store.setAsideJournals(inSyncCollection: syncCollection) else {
            throw .noSuchObject("no unlocked collection is synchronized as that collection")
        }
        let entries = found.journals.sorted { $0.key < $1.key }.map { DictEntry(.string($0.key), .string($0.value)) }
        return HandlerResult([.string(found.collection), .dictionary(key: .string, value: .string, entries)])
    }

    /// `Join(s folder, s sync_collection, (oayays) password, s label) → (o collection, s sync_collection, s device)`.
    private func join(folder: String, collection: String, password: WireSecret, label: String, caller: BusName)
        async throws(SecretServiceError) -> HandlerResult {
        let session = try await context.session(at: password.session, caller: caller)
        let secret = try session.decode(password).value
        let (id, enabled) = try await context.store.joinSync(folder: folder,
                                                             collection: collection.isEmpty ? nil : collection,
                                                             password: secret, label: label)
        context.logger.notice("a synchronized collection was joined", metadata: [
            "secret.collection": "\(id)", "dbus.sender": "\(caller.rawValue)",
        ])
        return HandlerResult([.objectPath(SecretObjectPath.collection(id).objectPath), .string(enabled.collection),
                              .string(enabled.device)])
    }
}

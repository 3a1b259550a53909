// io.coffer.Access
// SPDX-License-Identifier: Apache-2.0
// Coffer's access-control interface: who created each item and who may use it, and taking "always allow" back.

import DBusWire
import Logging
import SecretServiceProtocol
import SecretStore

/// Serves `io.coffer.Access` on `/org/freedesktop/secrets` (`dbus/io.coffer.Access.xml`).
///
/// There is no "grant": an application that could grant would grant itself. Access is given only by the user's
/// answer to a prompt (docs/ACCESS-CONTROL.md); revoking only takes it away, so any client may.
struct AccessAdaptor {
    let context: DaemonContext

    /// `io.coffer.Access`: which application created each item of a collection and which others may use it, and
    /// taking an "always allow" back, for `coffer access`. It lives beside `org.freedesktop.Secret.Service` on
    /// `/org/freedesktop/secrets`; `dbus/io.coffer.Access.xml` must agree with it (a test compares them).
    static let interface = ServedInterface(
        SecretServiceNames.accessInterface, adaptor: AccessAdaptor.init,
        methods: [
            AdaptorMethod("ListAccess", in: [.init("collection", .objectPath)],
                          out: [.init("items", .array(.structure([.objectPath, .string, .array(.string)])))]) {
                adaptor, call in
                try await adaptor.list(call.args.objectPath(0))
            },
            AdaptorMethod("Revoke", in: [
                .init("collection", .objectPath), .init("application", .string), .init("items", .array(.objectPath)),
            ], out: [.init("revoked", .array(.objectPath))]) { adaptor, call in
                try await adaptor.revoke(call.args.objectPath(0), application: call.args.string(1),
                                         items: call.args.objectPaths(2))
            },
        ])

    private func collection(at path: ObjectPath) async throws(SecretServiceError) -> String {
        guard let id = await context.collectionID(for: path) else { throw .noSuchObject("no such collection") }
        return id
    }

    /// `ListAccess(o collection) → a(osas)`.
    private func list(_ path: ObjectPath) async throws(SecretServiceError) -> HandlerResult {
        let id = try await collection(at: path)
        var entries: [DBusValue] = []
        for item in try await context.store.itemIDs(in: id) {
            let ownership = try await context.store.itemOwnership(collection: id, item: item)
            entries.append(.structure([.objectPath(Paths.item(id, item)), .string(ownership.creator ?? ""),
                                       .array(.string, ownership.allowed.map { .string($0) })]))
        }
        return HandlerResult([.array(.structure([.objectPath, .string, .array(.string)]), entries)])
    }

    /// `Revoke(o collection, s application, ao items) → ao revoked`.
    private func revoke(_ path: ObjectPath, application: String, items: [ObjectPath])
        async throws(SecretServiceError) -> HandlerResult {
        let id = try await collection(at: path)
        var targets: [String] = []
        if items.isEmpty {
            targets = try await context.store.itemIDs(in: id)
        } else {
            for item in items {
                guard let (collection, itemID) = await context.itemAddress(for: item), collection == id else {
                    throw .noSuchObject("\(item) is not an item of this collection")
                }
                targets.append(itemID)
            }
        }
        var revoked: [ObjectPath] = []
        for item in targets {
            let allowed = try await context.store.itemOwnership(collection: id, item: item).allowed
            guard allowed.contains(application) else { continue }
            try await context.store.setAllowedApplications(allowed.filter { $0 != application }, collection: id,
                                                           item: item)
            revoked.append(Paths.item(id, item))
        }
        if !revoked.isEmpty {
            context.logger.info("access revoked", metadata: ["secret.collection": "\(id)", "app": "\(application)",
                                                             "items": "\(revoked.count)"])
        }
        return HandlerResult([.objectPaths(revoked)])
    }
}

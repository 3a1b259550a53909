// io.coffer.Access
// SPDX-License-Identifier: Apache-2.0
// Coffer's access-control interface: who created each item and who may use it, granting and taking "always allow"
// back, and the access log.

import DBusWire
import Logging
import SecretServiceProtocol
import SecretStore

/// Serves `io.coffer.Access` on `/org/freedesktop/secrets` (`dbus/io.coffer.Access.xml`).
///
/// Granting asks the user in a prompt, which names the program that asks: an application that could grant without
/// it would grant itself. Revoking only takes access away, so any client may.
struct AccessAdaptor {
    let context: DaemonContext

    /// `io.coffer.Access`: which application created each item of a collection and which others may use it,
    /// granting and taking back "always allow", and the access log, for `coffer access`. It lives beside
    /// `org.freedesktop.Secret.Service` on `/org/freedesktop/secrets`; `dbus/io.coffer.Access.xml` must agree with
    /// it (a test compares them).
    static let interface = ServedInterface(
        SecretServiceNames.accessInterface, adaptor: AccessAdaptor.init,
        methods: [
            AdaptorMethod("ListAccess", in: [.init("collection", .objectPath)],
                          out: [.init("items", .array(.structure([.objectPath, .string, .array(.string)])))]) {
                adaptor, call in
                try await adaptor.list(call.args.objectPath(0))
            },
            AdaptorMethod("CollectionAccess", in: [.init("collection", .objectPath)],
                          out: [.init("applications", .array(.string))]) { adaptor, call in
                let grants = try await adaptor.grants(of: call.args.objectPath(0))
                return HandlerResult([.array(.string, grants.filter { $0.accessGroup == nil }
                    .map { .string($0.application) })])
            },
            AdaptorMethod("GroupAccess", in: [.init("collection", .objectPath)],
                          out: [.init("grants", .array(.structure([.string, .string])))]) { adaptor, call in
                let grants = try await adaptor.grants(of: call.args.objectPath(0))
                return HandlerResult([.array(.structure([.string, .string]), grants.compactMap { grant in
                    grant.accessGroup.map { .structure([.string($0), .string(grant.application)]) }
                })])
            },
            AdaptorMethod("Grant", in: [
                .init("collection", .objectPath), .init("application", .string), .init("items", .array(.objectPath)),
            ], out: [.init("prompt", .objectPath)]) { adaptor, call in
                try await adaptor.grant(call.args.objectPath(0), application: call.args.string(1),
                                        items: call.args.objectPaths(2), call: call)
            },
            AdaptorMethod("Revoke", in: [
                .init("collection", .objectPath), .init("application", .string), .init("items", .array(.objectPath)),
            ], out: [.init("revoked", .array(.objectPath))]) { adaptor, call in
                try await adaptor.revoke(call.args.objectPath(0), application: call.args.string(1),
                                         items: call.args.objectPaths(2), call: call)
            },
            AdaptorMethod("ReadLog", in: [.init("since", .uint64)],
                          out: [.init("entries", .array(AccessAdaptor.logEntry)), .init("locked", .uint32),
                                .init("keyGone", .uint32), .init("problems", .array(.string))]) { adaptor, call in
                try await adaptor.readLog(since: call.args.uint64(0))
            },
        ])

    /// The collection's "always allow" entries: whole collection, and per access group.
    private func grants(of path: ObjectPath) async throws(SecretServiceError) -> [CollectionGrant] {
        let id = try await collection(at: path)
        return try await context.store.collectionAllowedApplications(id).map(CollectionGrant.init(entry:))
    }

    func collection(at path: ObjectPath) async throws(SecretServiceError) -> String {
        guard let id = await context.collectionID(for: path) else { throw .noSuchObject("no such collection") }
        return id
    }

    /// The item ids `paths` name in collection `id`.
    /// - Throws: `noSuchObject` for a path that is not an item of the collection.
    func items(_ paths: [ObjectPath], in id: String) async throws(SecretServiceError) -> [String] {
        var items: [String] = []
        for path in paths {
            guard let (collection, item) = await context.itemAddress(for: path), collection == id else {
                throw .noSuchObject("\(path) is not an item of this collection")
            }
            if !items.contains(item) { items.append(item) }
        }
        return items
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

    /// `Revoke(o collection, s application, ao items) → ao revoked`: without items, from every item and from the
    /// collection as a whole (the collection's path is then among those returned, if it was allowed).
    private func revoke(_ path: ObjectPath, application: String, items paths: [ObjectPath], call: MethodCall)
        async throws(SecretServiceError) -> HandlerResult {
        let id = try await collection(at: path)
        let targets = paths.isEmpty ? try await context.store.itemIDs(in: id) : try await items(paths, in: id)
        var revoked: [ObjectPath] = []
        var logged: [String] = []
        if paths.isEmpty {
            // The whole collection, and every access group of it.
            let everything = try await context.store.collectionAllowedApplications(id)
            let kept = everything.filter { CollectionGrant(entry: $0).application != application }
            if kept.count != everything.count {
                try await context.store.setCollectionAllowedApplications(kept, collection: id)
                revoked.append(Paths.collection(id))
                logged.append("")
            }
        }
        for item in targets {
            let allowed = try await context.store.itemOwnership(collection: id, item: item).allowed
            guard allowed.contains(application) else { continue }
            try await context.store.setAllowedApplications(allowed.filter { $0 != application }, collection: id,
                                                           item: item)
            revoked.append(Paths.item(id, item))
            logged.append(item)
        }
        if !revoked.isEmpty {
            context.logger.info("access revoked", metadata: ["secret.collection": "\(id)", "app": "\(application)",
                                                             "items": "\(revoked.count)"])
            let requester = try? await context.access.identities.caller(call.caller, receivedAt: call.receivedAt)
            for item in logged {
                await context.access.log.record(AccessLogEntry(
                    time: AccessGate.now(), outcome: .revoked, application: application,
                    processID: UInt32(bitPattern: requester?.processID ?? 0), collection: id, item: item,
                    requester: requester?.identity.description ?? ""))
            }
        }
        return HandlerResult([.objectPaths(revoked)])
    }
}

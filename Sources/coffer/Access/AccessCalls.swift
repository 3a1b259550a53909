// SPDX-License-Identifier: Apache-2.0
// Calls of cofferd's io.coffer.Access interface: list who created and may use each item, revoke "always allow".

import DBusTransport
import DBusWire
import SecretServiceClient
import SecretServiceProtocol

/// One item as `ListAccess` reports it.
struct AccessEntry: Encodable {
    var collection: String
    var item: String
    /// The identity that created the item; empty when none is recorded.
    var creator: String
    var allowed: [String]
}

extension SecretService {
    /// `ListAccess(o collection) → a(osas)`.
    func access(of collection: ObjectPath) async throws -> [AccessEntry] {
        let body = try await callAccess("ListAccess", [.objectPath(collection)])
        guard case .array(_, let entries)? = body.first else {
            throw SecretServiceClientError.unexpectedReply("ListAccess returned no list")
        }
        let id = CollectionReference(path: collection).id
        return try entries.map { entry in
            guard case .structure(let fields) = entry, fields.count == 3, let item = fields[0].objectPath,
                  let creator = fields[1].string, case .array(_, let allowed) = fields[2]
            else { throw SecretServiceClientError.unexpectedReply("ListAccess returned a malformed item") }
            return AccessEntry(collection: id, item: item.rawValue, creator: creator,
                               allowed: allowed.compactMap(\.string))
        }
    }

    /// `Revoke(o collection, s application, ao items) → ao`.
    func revokeAccess(of application: String, in collection: ObjectPath, items: [ObjectPath]) async throws
        -> [ObjectPath] {
        let body = try await callAccess("Revoke", [.objectPath(collection), .string(application), .objectPaths(items)])
        guard case .array(_, let revoked)? = body.first else {
            throw SecretServiceClientError.unexpectedReply("Revoke returned no list")
        }
        return revoked.compactMap(\.objectPath)
    }

    private func callAccess(_ member: MemberName, _ arguments: [DBusValue]) async throws -> [DBusValue] {
        try await callServiceObject(SecretServiceNames.accessInterface, member, arguments)
    }
}

// SPDX-License-Identifier: Apache-2.0
// What the fault tests share: password calls through gnome-keyring's interface and reading every item back whole.

import DBusTransport
import DBusWire
import Foundation
import Glibc
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport

/// One item as a client sees it: everything a write can change.
struct ItemState: Hashable, Sendable, CustomStringConvertible {
    var label: String
    var attributes: [String: String]
    var secret: String

    var description: String {
        "label '\(label)', \(attributes.count) attributes, secret '\(secret.prefix { $0 != "|" })' "
            + "(\(secret.utf8.count) bytes)"
    }
}

enum FaultCalls {
    /// Calls `member` of gnome-keyring's internal interface on the service object, as Seahorse does.
    @discardableResult
    static func gnomeInternal(_ client: SecretService, _ member: MemberName, _ body: [DBusValue]) async throws
        -> [DBusValue] {
        let call = Message.methodCall(destination: SecretServiceNames.busName, path: SecretServiceNames.servicePath,
                                      interface: SecretServiceNames.gnomeInternalInterface, member: member, body: body)
        do {
            return try await client.connection.call(call).body
        } catch let error as DBusError {
            throw SecretServiceError(error)  // as our client's own calls report errors
        }
    }

    /// `text` as a `Secret` struct of the client's own session.
    static func master(_ client: SecretService, _ text: String) throws -> DBusValue {
        try client.session.encode(secret(text), contentType: "text/plain").dbusValue
    }

    /// `ChangeWithMasterPassword`: re-keys `collection` from `old` to `new`.
    static func changePassword(_ client: SecretService, _ collection: ObjectPath, from old: String, to new: String)
        async throws {
        try await gnomeInternal(client, "ChangeWithMasterPassword", [
            .objectPath(collection), try master(client, old), try master(client, new),
        ])
    }

    /// `UnlockWithMasterPassword`.
    /// - Returns: `false` when the daemon answers `Denied` (a wrong password).
    static func unlock(_ client: SecretService, _ collection: ObjectPath, password: String) async throws -> Bool {
        do {
            try await gnomeInternal(client, "UnlockWithMasterPassword", [
                .objectPath(collection), try master(client, password),
            ])
            return true
        } catch let error as SecretServiceError where errorName(error) == SecretErrorNames.denied {
            return false
        }
    }

    /// Every unlocked item matching `query`, by the value of its `key` attribute, read back with label, attributes
    /// and secret; locked matches are only counted.
    static func readAll(_ client: SecretService, matching query: [String: String], keyedBy key: String) async throws
        -> (items: [String: ItemState], paths: [String: ObjectPath], locked: Int, duplicates: [String]) {
        let found = try await client.searchItems(query)
        let secrets = try await client.secrets(of: found.unlocked)
        var items: [String: ItemState] = [:], paths: [String: ObjectPath] = [:], duplicates: [String] = []
        for path in found.unlocked {
            let properties = try await client.itemProperties(path)
            guard let id = properties.attributes[key] else { continue }
            if items[id] != nil { duplicates.append(id) }
            items[id] = ItemState(label: properties.label, attributes: properties.attributes,
                                  secret: secrets[path]?.text ?? "<no secret>")
            paths[id] = path
        }
        return (items, paths, found.locked.count, duplicates)
    }

    /// Whether process `pid` still runs (it may be a zombie the harness has not reaped yet: then `false`).
    static func isRunning(_ pid: Int32?) -> Bool {
        guard let pid, Glibc.kill(pid, 0) == 0 else { return false }
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        return !status.contains("State:\tZ")
    }
}

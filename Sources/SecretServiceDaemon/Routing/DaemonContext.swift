// SPDX-License-Identifier: Apache-2.0
// The shared parts every adaptor works with.

import Logging
import DBusWire
import SecretServiceProtocol
import SecretStore

/// The state owners and collaborators adaptors use. Holds references only; each piece of state has one owner
/// (the store actor, the client registry actor).
struct DaemonContext: Sendable {
    let store: SecretStore
    let clients: ClientRegistry
    let unlocks: UnlockCoordinator
    let prompter: any Prompter
    let sender: any MessageSender
    let logger: Logger

    // MARK: - Resolution helpers shared by adaptors

    /// The collection an object path names (directly or through an alias), or `nil`.
    func collectionID(for path: ObjectPath) async -> String? {
        switch SecretObjectPath(path) {
        case .collection(let id)?:
            return await store.collectionIDs().contains(id) ? id : nil
        case .alias(let name)?:
            return await store.resolveAlias(name)
        default:
            return nil
        }
    }

    /// The (collection, item) an item path names, directly or through an alias, if the item exists.
    func itemAddress(for path: ObjectPath) async -> (collection: String, item: String)? {
        let collection: String?
        let item: String
        switch SecretObjectPath(path) {
        case .item(let c, let i)?:
            collection = c
            item = i
        case .aliasItem(let alias, let i)?:
            collection = await store.resolveAlias(alias)
            item = i
        default:
            return nil
        }
        guard let collection, await store.itemExists(collection: collection, item: item) else { return nil }
        return (collection, item)
    }

    /// The caller's session at `path`.
    /// - Throws: `noSession` when the path is not a session of the caller's.
    func session(at path: ObjectPath, caller: BusName) async throws(SecretServiceError) -> SecretSession {
        guard case .session(let id)? = SecretObjectPath(path),
              let session = await clients.session(id, ownedBy: caller)
        else { throw .noSession("the session does not exist or belongs to another client") }
        return session
    }

    /// Sends a signal from `path`.
    func emit(_ interface: InterfaceName, _ member: MemberName, from path: ObjectPath, _ body: [DBusValue],
              to destination: BusName? = nil) async {
        await sender.deliver(.signal(path: path, interface: interface, member: member, body: body,
                                     destination: destination))
    }
}

/// Canonical paths of model objects.
enum Paths {
    static func collection(_ id: String) -> ObjectPath { SecretObjectPath.collection(id).objectPath }
    static func item(_ collection: String, _ item: String) -> ObjectPath {
        SecretObjectPath.item(collection: collection, item: item).objectPath
    }
    static func prompt(_ id: String) -> ObjectPath { SecretObjectPath.prompt(id).objectPath }
}

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
    /// Serializes the Secret portal's find-or-create per application.
    let portalSecrets = KeyedExclusion()

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
        guard let (collection, item) = await itemLocation(for: path),
              await store.itemExists(collection: collection, item: item) else { return nil }
        return (collection, item)
    }

    /// The (collection, item) an item path names, with an alias resolved, whether or not the item exists. A caller
    /// that reads the item next learns that from the read, which saves a store call per item of `GetSecrets`.
    func itemLocation(for path: ObjectPath) async -> (collection: String, item: String)? {
        switch SecretObjectPath(path) {
        case .item(let collection, let item)?:
            return (collection, item)
        case .aliasItem(let alias, let item)?:
            guard let collection = await store.resolveAlias(alias) else { return nil }
            return (collection, item)
        default:
            return nil
        }
    }

    /// The caller's session at `path`.
    /// - Throws: `noSession` when the path is not a session of the caller's.
    func session(at path: ObjectPath, caller: BusName) async throws(SecretServiceError) -> SecretSession {
        guard case .session(let id)? = SecretObjectPath(path),
              let session = await clients.session(id, ownedBy: caller)
        else { throw .noSession("the session does not exist or belongs to another client") }
        return session
    }

    /// The answer to a call that registered a session or a prompt for `caller`, with a check, once the reply is
    /// out, that `caller` is still on the bus; if it is not, everything it owns is dropped.
    ///
    /// A client can send a call and leave at once. The bus announces the departure after the call, but calls run
    /// concurrently, so the departure can be handled before the call registers what it made, which would then
    /// belong to nobody for good (enough of them fill the daemon-wide caps). Asking the bus after registering
    /// closes the race from both sides: a client gone before the bus answers is reported gone, and one leaving
    /// later has its departure announced after the answer, so handled after the registration. Unique names are
    /// never reused, so the answer is about this client. Remembering departed names instead would need to know
    /// when no call of theirs can still be running, which only a count of calls in flight per client, kept in the
    /// order the calls arrive, could tell. The question costs one round trip to the bus per session or prompt,
    /// after the reply, so the client does not wait for it.
    func registered(_ reply: [DBusValue], for caller: BusName) -> HandlerResult {
        HandlerResult(reply) {
            guard await !sender.isOnBus(caller) else { return }
            await clients.clientVanished(caller)
            logger.debug("dropped what a call made for a client that had left the bus",
                         metadata: ["dbus.sender": "\(caller.rawValue)"])
        }
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

// SPDX-License-Identifier: Apache-2.0
// Resolves a path under /org/freedesktop/secrets to a live object, or NoSuchObject.

import DBusWire
import SecretServiceProtocol
import SecretStore

/// Looks a path up in the store and the client registry.
struct NodeResolver {
    let context: DaemonContext

    static let directories: Set<String> = ["collection", "aliases", "session", "prompt"]

    func resolve(_ path: ObjectPath, caller: BusName) async throws(SecretServiceError) -> Node {
        if path == SecretServiceNames.portalPath { return .portal }
        guard let parsed = SecretObjectPath(path) else {
            let elements = path.elements
            if elements.count == 4, path.isDescendant(of: SecretServiceNames.servicePath),
               Self.directories.contains(String(elements[3])) {
                return .directory(kind: String(elements[3]))
            }
            throw .noSuchObject("no such object \(path)")
        }
        switch parsed {
        case .service:
            return .service
        case .collection, .alias:
            if let id = await context.collectionID(for: path) { return .collection(id: id, path: path) }
            if parsed == .alias(SecretServiceNames.defaultAlias), context.store.keepsFiles,
               context.prompter is any PasswordPrompter {
                return .unsetDefaultAlias
            }
            throw .noSuchObject("no such collection")
        case .item, .aliasItem:
            guard let (collection, item) = await context.itemAddress(for: path) else {
                throw .noSuchObject("no such item")
            }
            return .item(collection: collection, item: item, path: path)
        case .session(let id):
            guard let session = await context.clients.session(id, ownedBy: caller) else {
                throw .noSuchObject("no such session")
            }
            return .session(session)
        case .prompt(let id):
            if await context.clients.promptExists(id, ownedBy: caller) { return .prompt(id: id) }
            if await context.clients.wasFinished(id, ownedBy: caller) { return .finishedPrompt(id: id) }
            throw .noSuchObject("no such prompt")
        }
    }
}

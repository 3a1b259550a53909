// org.freedesktop.Secret.Collection
// SPDX-License-Identifier: Apache-2.0
// A collection object: delete, search, create items, and its properties.

import DBusWire
import SecretServiceProtocol
import SecretStore

/// Serves `org.freedesktop.Secret.Collection` on collection and alias paths.
struct CollectionAdaptor {
    let context: DaemonContext

    func call(_ call: MethodCall) async throws(SecretServiceError) -> HandlerResult {
        let args = Arguments(call)
        if case .unsetDefaultAlias = call.node {
            guard call.member == "CreateItem" else { throw .noSuchObject("no such collection") }
            return try await createFirstItem(properties: args.properties(0), secret: args.secret(1),
                                             replace: args.bool(2), caller: call.caller)
        }
        guard case .collection(let id, _) = call.node else { throw .unknownMethod("not a collection") }
        switch call.member {
        case "Delete":
            return try await delete(id, caller: call.caller)
        case "SearchItems":
            let found = try await context.store.search(in: id, try args.attributes(0))
            return HandlerResult([.objectPaths(found.map { Paths.item(id, $0) })])
        case "CreateItem":
            return try await createItem(in: id, properties: args.properties(0), secret: args.secret(1),
                                        replace: args.bool(2), caller: call.caller)
        default:
            throw .unknownMethod("no method '\(call.member)' in the Collection interface")
        }
    }

    /// `Delete() → (o prompt)`. An unlocked collection goes at once. A locked one is deleted only once a prompt
    /// has unlocked it: deleting must take no less than reading, or anyone on the bus could destroy a collection
    /// whose password they never knew. A dismissed prompt leaves it (and its file) as it was.
    private func delete(_ id: String, caller: BusName) async throws(SecretServiceError) -> HandlerResult {
        guard try await context.store.collectionInfo(id, countingItemTimes: false).isLocked else {
            try await context.store.deleteCollection(id)
            return HandlerResult([.objectPath(.root)])
        }
        let context = context
        let work = PromptWork(emptyResult: .objectPaths([])) { windowID in
            let unlocked = await context.unlocks.unlock(id) {
                await UnlockFlow(context: context).run(id, windowID: windowID, caller: caller)
            }
            guard unlocked, !Task.isCancelled, (try? await context.store.deleteCollection(id)) != nil else { return nil }
            return .objectPaths([Paths.collection(id)])
        }
        let prompt = try await context.clients.createPrompt(owner: caller, work: work)
        return HandlerResult([.objectPath(Paths.prompt(prompt))])
    }

    private func createItem(in collection: String, properties: [String: DBusValue], secret: WireSecret, replace: Bool,
                            caller: BusName) async throws(SecretServiceError) -> HandlerResult {
        let (label, attributes) = try Self.itemFields(properties)
        let session = try await context.session(at: secret.session, caller: caller)
        let value = try session.decode(secret)
        let (item, _) = try await context.store.createItem(in: collection, label: label, attributes: attributes,
                                                           secret: value, replace: replace)
        return HandlerResult([.objectPath(Paths.item(collection, item)), .objectPath(.root)])
    }

    /// The label and attributes `CreateItem`'s property map asks for.
    /// - Throws: `invalidArgs` for values of the wrong type.
    static func itemFields(_ properties: [String: DBusValue]) throws(SecretServiceError)
        -> (label: String, attributes: [String: String]) {
        var label = ""
        if let value = properties[SecretPropertyKeys.itemLabel] {
            guard let text = value.string else { throw .invalidArgs("the item label must be a string") }
            label = text
        }
        var attributes: [String: String] = [:]
        if let value = properties[SecretPropertyKeys.itemAttributes] {
            guard let map = value.stringDictionary else {
                throw .invalidArgs("the item attributes must be a string-to-string map")
            }
            attributes = map
        }
        if let value = properties[SecretPropertyKeys.itemType] {
            guard let schema = value.string else { throw .invalidArgs("the item type must be a string") }
            // gnome-keyring keeps the type as the item's schema; clients read it back as `xdg:schema`.
            if attributes["xdg:schema"] == nil, !schema.isEmpty { attributes["xdg:schema"] = schema }
        }
        return (label, attributes)
    }

    // MARK: - Properties

    /// - Parameters:
    ///   - includingItems: whether to list the items (O(n); signals announce the list apart).
    ///   - includingModified: whether `Modified` must be exact; the first time after an unlock it opens every item
    ///     (see ``SecretStore/collectionInfo(_:countingItemTimes:)``), which a signal about another property skips.
    func properties(of id: String, includingItems: Bool = true, includingModified: Bool = true) async
        throws(SecretServiceError) -> [String: DBusValue] {
        let info = try await context.store.collectionInfo(id, countingItemTimes: includingModified)
        var values: [String: DBusValue] = [
            "Label": .string(info.label),
            "Locked": .boolean(info.isLocked),
            "Created": .uint64(info.created),
            "Modified": .uint64(info.modified),
        ]
        if includingItems { values["Items"] = try await itemPaths(of: id) }
        return values
    }

    /// The value of the Items property.
    func itemPaths(of id: String) async throws(SecretServiceError) -> DBusValue {
        .objectPaths(try await context.store.itemIDs(in: id).map { Paths.item(id, $0) })
    }

    func setProperty(_ name: String, to value: DBusValue, of id: String) async throws(SecretServiceError) {
        switch name {
        case "Label":
            guard let label = value.string else { throw .invalidArgs("Label must be a string") }
            try await context.store.setLabel(ofCollection: id, to: label)
        default:
            throw .propertyReadOnly("the property '\(name)' is read-only")
        }
    }
}

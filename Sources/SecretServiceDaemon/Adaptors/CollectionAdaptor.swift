// org.freedesktop.Secret.Collection
// SPDX-License-Identifier: Apache-2.0
// A collection object: delete, search, create items, and its properties.

import DBusWire
import SecretServiceProtocol
import SecretStore

/// Serves `org.freedesktop.Secret.Collection` on collection and alias paths.
struct CollectionAdaptor {
    let context: DaemonContext

    static let interface = ServedInterface(
        SecretServiceNames.collectionInterface, adaptor: CollectionAdaptor.init,
        methods: [
            AdaptorMethod("Delete", out: [.init("prompt", .objectPath)]) { adaptor, call in
                try await adaptor.delete(try adaptor.collectionID(call), caller: call.caller)
            },
            AdaptorMethod("SearchItems", in: [.init("attributes", SecretInterfaces.attributes)],
                          out: [.init("results", SecretInterfaces.paths)]) { adaptor, call in
                try await adaptor.searchItems(in: adaptor.collectionID(call), call.args.attributes(0),
                                              caller: call.caller)
            },
            AdaptorMethod("CreateItem",
                          in: [.init("properties", SecretInterfaces.propertyMap),
                               .init("secret", SecretInterfaces.secret), .init("replace", .boolean)],
                          out: [.init("item", .objectPath), .init("prompt", .objectPath)]) { adaptor, call in
                let args = call.args
                if case .unsetDefaultAlias = call.node {
                    return try await adaptor.createFirstItem(properties: args.properties(0), secret: args.secret(1),
                                                             replace: args.bool(2), caller: call.caller,
                                                             receivedAt: call.receivedAt)
                }
                return try await adaptor.createItem(in: adaptor.collectionID(call), properties: args.properties(0),
                                                    secret: args.secret(1), replace: args.bool(2), call: call)
            },
        ],
        properties: [
            PropertyDescription("Items", SecretInterfaces.paths),
            PropertyDescription("Label", .string, .readwrite),
            PropertyDescription("Locked", .boolean),
            PropertyDescription("Created", .uint64),
            PropertyDescription("Modified", .uint64),
        ],
        signals: [
            SignalDescription("ItemCreated", [.init("item", .objectPath)]),
            SignalDescription("ItemDeleted", [.init("item", .objectPath)]),
            SignalDescription("ItemChanged", [.init("item", .objectPath)]),
        ])

    /// The collection a call addresses. The default alias before any collection exists answers only `CreateItem`.
    private func collectionID(_ call: MethodCall) throws(SecretServiceError) -> String {
        switch call.node {
        case .collection(let id, _): return id
        case .unsetDefaultAlias: throw .noSuchObject("no such collection")
        default: throw .unknownMethod("not a collection")
        }
    }

    /// `SearchItems(a{ss}) → ao`: with access control hiding other applications' items, only those the caller may use.
    private func searchItems(in id: String, _ attributes: [String: String], caller: BusName)
        async throws(SecretServiceError) -> HandlerResult {
        var found = try await context.store.search(in: id, attributes)
        if context.access.hides(id) {
            var shown: [String] = []
            for item in found where await context.access.permits(caller, collection: id, item: item) {
                shown.append(item)
            }
            found = shown
        }
        return HandlerResult([.objectPaths(found.map { Paths.item(id, $0) })])
    }

    /// `Delete() → (o prompt)`. An unlocked collection goes at once. A locked one is deleted only once a prompt
    /// has unlocked it: deleting must take no less than reading, or anyone on the bus could destroy a collection
    /// whose password they never knew. A dismissed prompt leaves it (and its file) as it was. Under access control,
    /// a collection holding items of other applications is deleted only once the user allowed it, in the same way.
    private func delete(_ id: String, caller: BusName) async throws(SecretServiceError) -> HandlerResult {
        let flow = ConsentFlow(context: context)
        if try await !context.store.collectionInfo(id, countingItemTimes: false).isLocked,
           await flow.othersItems(in: id, caller: caller) == 0 {
            try await context.store.deleteCollection(id)
            return HandlerResult([.objectPath(.root)])
        }
        let context = context
        let question = await context.unlockQuestion(for: [id])
        let work = PromptWork(emptyResult: .objectPaths([]), question: question) { windowID in
            let unlocked = await context.unlocks.unlock(id) {
                await UnlockFlow(context: context).run(id, windowID: windowID, caller: caller)
            }
            guard unlocked, !Task.isCancelled,
                  await flow.allowsDeletion(of: id, windowID: windowID, caller: caller), !Task.isCancelled,
                  (try? await context.store.deleteCollection(id)) != nil else { return nil }
            return .objectPaths([Paths.collection(id)])
        }
        let prompt = try await context.clients.createPrompt(owner: caller, work: work)
        return HandlerResult([.objectPath(Paths.prompt(prompt))])
    }

    /// `CreateItem`. The new item records the caller's identity as its creator. Replacing an item the caller may
    /// not use would change another application's secret unasked, so the caller gets an item of its own beside it
    /// instead: its later lookups find its own (newest) item.
    private func createItem(in collection: String, properties: [String: DBusValue], secret: WireSecret, replace: Bool,
                            call: MethodCall) async throws(SecretServiceError) -> HandlerResult {
        let caller = call.caller
        let (label, attributes) = try Self.itemFields(properties)
        let session = try await context.session(at: secret.session, caller: caller)
        let value = try session.decode(secret)
        var replace = replace
        if replace, let existing = try await context.store.search(in: collection, attributes).first,
           await !context.access.permitsUse(caller, collection: collection, item: existing, for: .changed) {
            replace = false
        }
        let creator = Self.isUnowned(properties) ? nil
            : await context.access.creator(for: caller, receivedAt: call.receivedAt)
        let (item, _) = try await context.store.createItem(in: collection, label: label, attributes: attributes,
                                                           secret: value, replace: replace, creator: creator)
        return HandlerResult([.objectPath(Paths.item(collection, item)), .objectPath(.root)])
    }

    /// The label and attributes `CreateItem`'s property map asks for.
    /// - Throws: `invalidArgs` for values of the wrong type.
    /// Whether `CreateItem` asked to store the item for no application in particular (an import).
    static func isUnowned(_ properties: [String: DBusValue]) -> Bool {
        properties[SecretPropertyKeys.itemUnowned]?.bool == true
    }

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

// org.freedesktop.Secret.Item
// SPDX-License-Identifier: Apache-2.0
// An item object: delete, read and write its secret, and its properties.

import DBusWire
import SecretServiceProtocol
import SecretStore

/// Serves `org.freedesktop.Secret.Item` on item paths (canonical or through an alias).
struct ItemAdaptor {
    let context: DaemonContext

    static let interface = ServedInterface(
        SecretServiceNames.itemInterface, adaptor: ItemAdaptor.init,
        methods: [
            AdaptorMethod("Delete", out: [.init("Prompt", .objectPath)]) { adaptor, call in
                let (collection, item) = try await adaptor.permittedItem(call, for: .deleted)
                try await adaptor.context.store.deleteItem(collection: collection, item: item)
                return HandlerResult([.objectPath(.root)])
            },
            AdaptorMethod("GetSecret", in: [.init("session", .objectPath)],
                          out: [.init("secret", SecretInterfaces.secret)]) { adaptor, call in
                let (collection, item) = try await adaptor.permittedItem(call, for: .read)
                let session = try await adaptor.context.session(at: try call.args.objectPath(0), caller: call.caller)
                let secret = try await adaptor.context.store.secret(collection: collection, item: item)
                return HandlerResult([try session.encode(secret).dbusValue])
            },
            AdaptorMethod("SetSecret", in: [.init("secret", SecretInterfaces.secret)]) { adaptor, call in
                let (collection, item) = try await adaptor.permittedItem(call, for: .changed)
                let wire = try call.args.secret(0)
                let session = try await adaptor.context.session(at: wire.session, caller: call.caller)
                try await adaptor.context.store.setSecret(collection: collection, item: item,
                                                          to: try session.decode(wire))
                return HandlerResult()
            },
        ],
        properties: [
            PropertyDescription("Locked", .boolean),
            PropertyDescription("Attributes", SecretInterfaces.attributes, .readwrite),
            PropertyDescription("Label", .string, .readwrite),
            PropertyDescription("Created", .uint64),
            PropertyDescription("Modified", .uint64),
        ])

    /// The item a call addresses, once the caller may use it. Every member uses the item: one another application
    /// created needs the user's consent first (Unlock).
    private func permittedItem(_ call: MethodCall, for use: AccessLogEntry.Outcome) async throws(SecretServiceError)
        -> (String, String) {
        guard case .item(let collection, let item, _) = call.node else { throw .unknownMethod("not an item") }
        guard await context.access.permitsUse(call.caller, collection: collection, item: item, for: use) else {
            try await refuse(call.caller, collection: collection, item: item)
        }
        return (collection, item)
    }

    /// Refuses a use of an item the caller may not use: locked for it. Logged unless the whole collection is
    /// locked, which is no decision about the application.
    private func refuse(_ caller: BusName, collection: String, item: String) async throws(SecretServiceError)
        -> Never {
        if try await !context.store.collectionInfo(collection, countingItemTimes: false).isLocked {
            await context.access.refused(caller, collection: collection, item: item)
        }
        throw .isLocked("the item is locked for this application; unlock it to ask the user")
    }

    // MARK: - Properties

    /// The item's properties as `caller` sees them: locked when it may not use the item, and under `strict`
    /// without label or attributes. Signals, seen by every client, pass no caller: they tell the collection's lock
    /// state, and under `strict` no label or attributes.
    func properties(collection: String, item: String, caller: BusName?) async throws(SecretServiceError)
        -> [String: DBusValue] {
        try await properties(of: [context.store.itemInfo(collection: collection, item: item)], caller: caller)[0]
            .dictionary
    }

    /// ``properties(collection:item:caller:)`` for items already read from the store, with one access decision for
    /// them all: a batch read asks the access rules once, not once per item.
    func properties(of infos: [ItemInfo], caller: BusName?) async -> [ItemPropertyValues] {
        var permitted = Array(repeating: false, count: infos.count)
        if let caller { permitted = await context.access.permitted(caller, infos.map { ($0.collection, $0.id) }) }
        return zip(infos, permitted).map { info, permitted in
            let hidden = !permitted && context.access.hides(info.collection)
            return ItemPropertyValues([
                ("Attributes", .stringDictionary(hidden ? [:] : info.attributes)),
                ("Created", .uint64(info.created)),
                ("Label", .string(hidden ? "" : info.label)),
                ("Locked", .boolean(info.isLocked || (caller != nil && !permitted))),
                ("Modified", .uint64(info.modified)),
            ])
        }
    }

    func setProperty(_ name: String, to value: DBusValue, collection: String, item: String, caller: BusName)
        async throws(SecretServiceError) {
        guard await context.access.permitsUse(caller, collection: collection, item: item, for: .changed) else {
            try await refuse(caller, collection: collection, item: item)
        }
        switch name {
        case "Label":
            guard let label = value.string else { throw .invalidArgs("Label must be a string") }
            try await context.store.setLabel(collection: collection, item: item, to: label)
        case "Attributes":
            guard let attributes = value.stringDictionary else {
                throw .invalidArgs("Attributes must be a string-to-string map")
            }
            try await context.store.setAttributes(collection: collection, item: item, to: attributes)
        default:
            throw .propertyReadOnly("the property '\(name)' is read-only")
        }
    }
}

/// An item's properties as one caller sees them, in name order: as a Swift dictionary (`GetAll`, signals) or as
/// the `a{sv}` value a batch read sends, built without a dictionary to hash and sort per item.
struct ItemPropertyValues {
    let entries: [(name: String, value: DBusValue)]

    init(_ entries: [(name: String, value: DBusValue)]) { self.entries = entries }

    var dictionary: [String: DBusValue] {
        Dictionary(uniqueKeysWithValues: entries.map { ($0.name, $0.value) })
    }

    var map: DBusValue {
        .dictionary(key: .string, value: .variant, entries.map { DictEntry(.string($0.name), .variant($0.value)) })
    }
}

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
        try await properties(of: context.store.itemInfo(collection: collection, item: item), caller: caller)
    }

    /// ``properties(collection:item:caller:)`` for an item already read from the store.
    func properties(of info: ItemInfo, caller: BusName?) async -> [String: DBusValue] {
        var permitted = false
        if let caller { permitted = await context.access.permits(caller, collection: info.collection, item: info.id) }
        let hidden = !permitted && context.access.hides(info.collection)
        if caller == nil { permitted = true }
        return [
            "Locked": .boolean(info.isLocked || !permitted),
            "Attributes": .stringDictionary(hidden ? [:] : info.attributes),
            "Label": .string(hidden ? "" : info.label),
            "Created": .uint64(info.created),
            "Modified": .uint64(info.modified),
        ]
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

// org.freedesktop.Secret.Item
// SPDX-License-Identifier: Apache-2.0
// An item object: delete, read and write its secret, and its properties.

import DBusWire
import SecretServiceProtocol
import SecretStore

/// Serves `org.freedesktop.Secret.Item` on item paths (canonical or through an alias).
struct ItemAdaptor {
    let context: DaemonContext

    func call(_ call: MethodCall) async throws(SecretServiceError) -> HandlerResult {
        guard case .item(let collection, let item, _) = call.node else { throw .unknownMethod("not an item") }
        let args = Arguments(call)
        // Every member uses the item: one another application created needs the user's consent first (Unlock).
        guard await context.access.permits(call.caller, collection: collection, item: item) else {
            _ = try await context.store.collectionInfo(collection)
            throw .isLocked("the item is locked for this application; unlock it to ask the user")
        }
        switch call.member {
        case "Delete":
            try await context.store.deleteItem(collection: collection, item: item)
            return HandlerResult([.objectPath(.root)])
        case "GetSecret":
            let session = try await context.session(at: try args.objectPath(0), caller: call.caller)
            let secret = try await context.store.secret(collection: collection, item: item)
            return HandlerResult([try session.encode(secret).dbusValue])
        case "SetSecret":
            let wire = try args.secret(0)
            let session = try await context.session(at: wire.session, caller: call.caller)
            try await context.store.setSecret(collection: collection, item: item, to: try session.decode(wire))
            return HandlerResult()
        default:
            throw .unknownMethod("no method '\(call.member)' in the Item interface")
        }
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
        guard await context.access.permits(caller, collection: collection, item: item) else {
            throw .isLocked("the item is locked for this application; unlock it to ask the user")
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

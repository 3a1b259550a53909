// io.coffer.Items
// SPDX-License-Identifier: Apache-2.0
// Coffer's batch reads of items: the properties of many items in one call.

import DBusWire
import SecretServiceProtocol

/// Serves `io.coffer.Items` on `/org/freedesktop/secrets` (`dbus/io.coffer.Items.xml`).
///
/// A search that returns N items otherwise costs N `Properties.GetAll` calls: N messages through the bus, N
/// dispatches here and N replies for the client to decode. This answers them in one message, item by item exactly
/// as `GetAll` would (``ItemAdaptor/properties(collection:item:caller:)``), so the access rules cannot differ.
struct ItemsAdaptor {
    let context: DaemonContext

    func call(_ call: MethodCall) async throws(SecretServiceError) -> HandlerResult {
        switch call.member {
        case "GetItemProperties":
            return try await properties(of: Arguments(call).objectPaths(0), caller: call.caller)
        default:
            throw .unknownMethod("no method '\(call.member)' in the \(SecretServiceNames.itemsInterface) interface")
        }
    }

    /// `GetItemProperties(ao items) → a{oa{sv}}`. Paths naming no item are left out: between a client's search and
    /// this read another client may delete an item, and that must not fail the read of the rest.
    private func properties(of paths: [ObjectPath], caller: BusName) async throws(SecretServiceError)
        -> HandlerResult {
        let items = ItemAdaptor(context: context)
        var entries: [DictEntry] = []
        entries.reserveCapacity(paths.count)
        var seen = Set<ObjectPath>()
        for path in paths where seen.insert(path).inserted {
            guard let (collection, item) = await context.itemLocation(for: path) else { continue }
            let values: [String: DBusValue]
            do {
                values = try await items.properties(collection: collection, item: item, caller: caller)
            } catch .noSuchObject {
                continue
            }
            entries.append(DictEntry(.objectPath(path), .variantDictionary(values)))
        }
        return HandlerResult([.dictionary(key: .objectPath, value: SecretInterfaces.propertyMap, entries)])
    }
}

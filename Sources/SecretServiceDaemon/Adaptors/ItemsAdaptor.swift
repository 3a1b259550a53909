// io.coffer.Items
// SPDX-License-Identifier: Apache-2.0
// Coffer's batch reads of items: the properties of many items in one call, and a search in creation order.

import DBusWire
import SecretServiceProtocol
import SecretStore

/// Serves `io.coffer.Items` on `/org/freedesktop/secrets` (`dbus/io.coffer.Items.xml`).
///
/// A search that returns N items otherwise costs N `Properties.GetAll` calls: N messages through the bus, N
/// dispatches here and N replies for the client to decode. This answers them in one message, item by item exactly
/// as `GetAll` would (both build the answer with ``ItemAdaptor/properties(of:caller:)``), so the access rules cannot
/// differ.
struct ItemsAdaptor {
    let context: DaemonContext

    /// `io.coffer.Items`: the properties of many items in one call, which the Secret Service interface can only give
    /// one `GetAll` at a time. It lives beside `org.freedesktop.Secret.Service` on `/org/freedesktop/secrets`;
    /// `dbus/io.coffer.Items.xml` must agree with it (a test compares them).
    static let interface = ServedInterface(
        SecretServiceNames.itemsInterface, adaptor: ItemsAdaptor.init,
        methods: [
            // It reads items of any collection by path, so it waits for a start-up unlock as GetSecrets does.
            AdaptorMethod("GetItemProperties", in: [.init("items", SecretInterfaces.paths)],
                          out: [.init("properties", propertiesByItem)], waitsForUnlocks: true) { adaptor, call in
                try await adaptor.properties(of: call.args.objectPaths(0), caller: call.caller)
            },
            AdaptorMethod("SearchOldestFirst",
                          in: [.init("attributes", SecretInterfaces.attributes),
                               .init("excluding", SecretInterfaces.attributes)],
                          out: [.init("unlocked", SecretInterfaces.paths), .init("locked", SecretInterfaces.paths)],
                          waitsForUnlocks: true) { adaptor, call in
                try await adaptor.searchOldestFirst(try call.args.attributes(0), excluding: try call.args.attributes(1),
                                                    caller: call.caller)
            },
        ])

    static let propertiesByItem = DBusType.dictionary(key: .objectPath, value: SecretInterfaces.propertyMap)

    /// `GetItemProperties(ao items) → a{oa{sv}}`. Paths naming no item are left out: between a client's search and
    /// this read another client may delete an item, and that must not fail the read of the rest.
    private func properties(of paths: [ObjectPath], caller: BusName) async throws(SecretServiceError)
        -> HandlerResult {
        var asked: [(path: ObjectPath, address: (collection: String, item: String))] = []
        asked.reserveCapacity(paths.count)
        var seen = Set<ObjectPath>(minimumCapacity: paths.count)
        for path in paths where seen.insert(path).inserted {
            if let address = await context.itemLocation(for: path) { asked.append((path, address)) }
        }
        // One visit to the store for all of them, and one to the access rules, which decide item by item as for
        // GetAll.
        let infos = try await context.store.itemInfos(asked.map(\.address))
        let found = zip(asked, infos).compactMap { asked, info in info.map { (path: asked.path, info: $0) } }
        let values = await ItemAdaptor(context: context).properties(of: found.map(\.info), caller: caller)
        let entries = zip(found, values).map { DictEntry(.objectPath($0.path), $1.map) }
        return HandlerResult([.dictionary(key: .objectPath, value: SecretInterfaces.propertyMap, entries)])
    }

    /// `SearchOldestFirst(a{ss} attributes, a{ss} excluding) → (ao unlocked, ao locked)`: `SearchItems`, less the
    /// readable items that have any pair of `excluding`, with those in creation order (`Created`, then the number
    /// the collection gave the item, then the path). The locked list holds what `SearchItems`' does, unordered: the
    /// metadata of those cannot be read, so nothing is excluded from it. A client that needs only which items match, in order, and their
    /// secrets reads no properties at all.
    private func searchOldestFirst(_ attributes: [String: String], excluding: [String: String], caller: BusName)
        async throws(SecretServiceError) -> HandlerResult {
        let matches = try await context.store.searchOldestFirst(attributes, excluding: excluding)
        let readability = await ServiceAdaptor(context: context).readability(of: matches.map(\.ref), caller: caller)
        var unlocked: [ObjectPath] = []
        var locked: [ObjectPath] = []
        unlocked.reserveCapacity(matches.count)
        for (match, readable) in zip(matches, readability) {
            switch readable {
            case true? where !match.isExcluded: unlocked.append(Paths.item(match.ref.collection, match.ref.item))
            case true?: break
            case false?: locked.append(Paths.item(match.ref.collection, match.ref.item))
            case nil: break
            }
        }
        return HandlerResult([.objectPaths(unlocked), .objectPaths(locked)])
    }
}

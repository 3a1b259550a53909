// SPDX-License-Identifier: Apache-2.0
// Turns store changes into the spec's signals and PropertiesChanged, so caching clients stay current.

import DBusWire
import SecretServiceProtocol
import SecretStore

/// Emits signals for store events, in the order the store made the changes.
struct Signaller {
    let context: DaemonContext

    func run() async {
        let itemLists = ItemsListCoalescer { [self] collection in await announceItems(of: collection) }
        for await event in context.store.events {
            await publish(event, itemLists: itemLists)
        }
    }

    func publish(_ event: StoreEvent, itemLists: ItemsListCoalescer) async {
        let service = SecretServiceNames.servicePath
        switch event {
        case .collectionCreated(let id):
            await context.emit(SecretServiceNames.serviceInterface, "CollectionCreated", from: service,
                               [.objectPath(Paths.collection(id))])
        case .collectionDeleted(let id):
            await context.emit(SecretServiceNames.serviceInterface, "CollectionDeleted", from: service,
                               [.objectPath(Paths.collection(id))])
        case .collectionsListChanged:
            let values = await ServiceAdaptor(context: context).properties()
            await propertiesChanged(SecretServiceNames.serviceInterface, values, at: [service])
        case .collectionChanged(let id, let properties):
            await context.emit(SecretServiceNames.serviceInterface, "CollectionChanged", from: service,
                               [.objectPath(Paths.collection(id))])
            // The other properties go out now; Items, the full list, is spaced out by the coalescer.
            guard let values = try? await CollectionAdaptor(context: context).properties(
                of: id, includingItems: false, includingModified: properties.contains(.modified))
            else { return }
            let changed = values.filter { name, _ in properties.contains { $0.rawValue == name } }
            await propertiesChanged(SecretServiceNames.collectionInterface, changed, at: await paths(of: id))
            if properties.contains(.items) { await itemLists.itemsChanged(id) }
        case .itemCreated(let collection, let item):
            await itemSignal("ItemCreated", collection, item)
        case .itemDeleted(let collection, let item):
            await itemSignal("ItemDeleted", collection, item)
        case .itemChanged(let collection, let item, let properties):
            // A lock change alters no item content, so it is announced only as a property change.
            if properties != [.locked] { await itemSignal("ItemChanged", collection, item) }
            guard let values = try? await ItemAdaptor(context: context).properties(collection: collection, item: item)
            else { return }
            let changed = values.filter { name, _ in properties.contains { $0.rawValue == name } }
            await propertiesChanged(SecretServiceNames.itemInterface, changed, at: [Paths.item(collection, item)])
        }
    }

    /// PropertiesChanged with a collection's current Items list.
    private func announceItems(of collection: String) async {
        guard let items = try? await CollectionAdaptor(context: context).itemPaths(of: collection) else { return }
        await propertiesChanged(SecretServiceNames.collectionInterface, ["Items": items],
                                at: await paths(of: collection))
    }

    /// A collection's canonical path and the alias paths that lead to it; clients hold proxies on either.
    private func paths(of collection: String) async -> [ObjectPath] {
        let aliases = await context.store.aliases(of: collection)
        return [Paths.collection(collection)] + aliases.map { SecretObjectPath.alias($0).objectPath }
    }

    private func itemSignal(_ member: MemberName, _ collection: String, _ item: String) async {
        for path in await paths(of: collection) {
            await context.emit(SecretServiceNames.collectionInterface, member, from: path,
                               [.objectPath(Paths.item(collection, item))])
        }
    }

    private func propertiesChanged(_ interface: InterfaceName, _ values: [String: DBusValue], at paths: [ObjectPath])
        async {
        guard !values.isEmpty else { return }
        let body: [DBusValue] = [.string(interface.rawValue), .variantDictionary(values), .array(.string, [])]
        for path in paths {
            await context.emit(SecretServiceNames.propertiesInterface, "PropertiesChanged", from: path, body)
        }
    }
}

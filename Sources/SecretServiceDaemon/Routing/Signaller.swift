// SPDX-License-Identifier: Apache-2.0
// Turns store changes into the spec's signals and PropertiesChanged, so caching clients stay current.

import DBusWire
import SecretServiceProtocol
import SecretStore

/// Emits signals for store events, in the order the store made the changes.
struct Signaller {
    let context: DaemonContext

    func run() async {
        let announcements = CollectionChangeCoalescer { [self] collection, properties in
            await announceChanges(of: collection, properties)
        }
        for await event in context.store.events {
            await publish(event, announcements: announcements)
        }
    }

    func publish(_ event: StoreEvent, announcements: CollectionChangeCoalescer) async {
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
            await announcements.changed(id, properties)
        case .itemCreated(let collection, let item):
            await itemSignal("ItemCreated", collection, item)
        case .itemDeleted(let collection, let item):
            await itemSignal("ItemDeleted", collection, item)
        case .itemChanged(let collection, let item, let properties):
            // A lock change alters no item content, so it is announced only as a property change.
            if properties != [.locked] { await itemSignal("ItemChanged", collection, item) }
            guard let values = try? await ItemAdaptor(context: context).properties(collection: collection, item: item,
                                                                                       caller: nil)
            else { return }
            let changed = values.filter { name, _ in properties.contains { $0.rawValue == name } }
            await propertiesChanged(SecretServiceNames.itemInterface, changed, at: [Paths.item(collection, item)])
        }
    }

    /// `CollectionChanged`, then `PropertiesChanged` with the current values of `properties` at each of the
    /// collection's paths; nothing for a collection deleted meanwhile (its `CollectionDeleted` went out already).
    private func announceChanges(of collection: String, _ properties: Set<CollectionProperty>) async {
        guard let values = try? await CollectionAdaptor(context: context).properties(
            of: collection, includingItems: properties.contains(.items),
            includingModified: properties.contains(.modified))
        else { return }
        await context.emit(SecretServiceNames.serviceInterface, "CollectionChanged", from: SecretServiceNames.servicePath,
                           [.objectPath(Paths.collection(collection))])
        let changed = values.filter { name, _ in properties.contains { $0.rawValue == name } }
        await propertiesChanged(SecretServiceNames.collectionInterface, changed, at: await paths(of: collection))
    }

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

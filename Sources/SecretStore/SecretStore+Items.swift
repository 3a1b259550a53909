// SPDX-License-Identifier: Apache-2.0
// Item operations of the store: create, read, change, delete and search.

public import SecretServiceProtocol
import SecretCrypto

extension SecretStore {
    // MARK: - Reading

    /// The items of a collection, oldest first.
    /// - Throws: ``SecretServiceError/noSuchObject(_:)``.
    public func itemIDs(in collection: String) throws(SecretServiceError) -> [String] {
        try state(of: collection).items.values.sorted { $0.sequence < $1.sequence }.map(\.id)
    }

    /// A snapshot of one item.
    /// - Throws: ``SecretServiceError/noSuchObject(_:)``.
    public func itemInfo(collection: String, item: String) throws(SecretServiceError) -> ItemInfo {
        let state = try state(of: collection)
        guard let stored = state.items[item] else { throw .noSuchObject("no such item") }
        return state.info(of: stored)
    }

    /// Whether an item exists.
    public func itemExists(collection: String, item: String) -> Bool {
        collections[collection]?.items[item] != nil
    }

    /// The secret of an item, decrypted into secure memory.
    /// - Throws: `noSuchObject`, `isLocked`, `failed`.
    public func secret(collection: String, item: String) throws(SecretServiceError) -> StoredSecret {
        let state = try unlockedState(of: collection)
        guard let stored = state.items[item] else { throw .noSuchObject("no such item") }
        do {
            return try state.vault.open(stored.secret, binding: state.binding(item))
        } catch {
            throw .failed("the stored secret could not be decrypted")
        }
    }

    // MARK: - Searching

    /// Items of every collection whose attributes contain all of `query`, newest `Modified` first.
    public func search(_ query: [String: String]) -> [ItemRef] {
        var found: [(StoredItem, ItemRef)] = []
        for state in collections.values {
            for item in state.matches(query) {
                found.append((item, ItemRef(collection: state.id, item: item.id, isLocked: state.isLocked)))
            }
        }
        found.sort { CollectionState.newestFirst($0.0, $1.0) }
        return found.map(\.1)
    }

    /// Items of one collection whose attributes contain all of `query`, newest `Modified` first.
    /// - Throws: ``SecretServiceError/noSuchObject(_:)``.
    public func search(in collection: String, _ query: [String: String]) throws(SecretServiceError) -> [String] {
        try state(of: collection).matches(query).map(\.id)
    }

    // MARK: - Writing

    /// Creates an item, or with `replace` updates in place the first (newest) item whose attributes contain all of
    /// `attributes`, as gnome-keyring and KeePassXC do.
    /// - Returns: the item's identifier and whether it is new.
    /// - Throws: `noSuchObject`, `isLocked`, `limitsExceeded`, `invalidArgs`, `failed`.
    public func createItem(in collection: String, label: String, attributes: [String: String],
                           secret: StoredSecret, replace: Bool) throws(SecretServiceError) -> (id: String, created: Bool) {
        try checkItem(label: label, attributes: attributes, secret: secret)
        var state = try unlockedState(of: collection)
        let now = clock.now()
        if replace, let existing = state.matches(attributes).first {
            let sealed = try seal(secret, in: state, item: existing.id)
            state.replaceAttributes(of: existing.id, with: attributes)
            state.items[existing.id]?.label = label
            state.items[existing.id]?.secret = sealed
            state.items[existing.id]?.modified = now
            state.modified = now
            collections[collection] = state
            eventSink.yield(.itemChanged(collection: collection, item: existing.id, [.label, .attributes, .modified]))
            eventSink.yield(.collectionChanged(collection, [.modified]))
            return (existing.id, false)
        }
        let sequence = state.nextSequence
        let id = String(sequence)
        let item = StoredItem(id: id, sequence: sequence, label: label, attributes: attributes, created: now,
                              modified: now, secret: try seal(secret, in: state, item: id))
        state.nextSequence += 1
        state.insert(item)
        state.modified = now
        collections[collection] = state
        eventSink.yield(.itemCreated(collection: collection, item: id))
        eventSink.yield(.collectionChanged(collection, [.items, .modified]))
        return (id, true)
    }

    /// Deletes an item.
    /// - Throws: `noSuchObject`, `isLocked`.
    public func deleteItem(collection: String, item: String) throws(SecretServiceError) {
        try unlockedState(of: collection)
        guard collections[collection]?.remove(item) != nil else { throw .noSuchObject("no such item") }
        touch(collection)
        eventSink.yield(.itemDeleted(collection: collection, item: item))
        eventSink.yield(.collectionChanged(collection, [.items, .modified]))
    }

    /// Renames an item.
    /// - Throws: `noSuchObject`, `isLocked`, `limitsExceeded`.
    public func setLabel(collection: String, item: String, to label: String) throws(SecretServiceError) {
        try limits.check(label: label)
        try modifyItem(collection: collection, item: item, changed: .label) { $0.label = label }
    }

    /// Replaces an item's attributes.
    /// - Throws: `noSuchObject`, `isLocked`, `limitsExceeded`, `invalidArgs`.
    public func setAttributes(collection: String, item: String, to attributes: [String: String]) throws(SecretServiceError) {
        try limits.check(attributes: attributes)
        try unlockedState(of: collection)
        guard collections[collection]?.items[item] != nil else { throw .noSuchObject("no such item") }
        collections[collection]?.replaceAttributes(of: item, with: attributes)
        try modifyItem(collection: collection, item: item, changed: .attributes) { _ in }
    }

    /// Replaces an item's secret and content type.
    /// - Throws: `noSuchObject`, `isLocked`, `limitsExceeded`, `failed`.
    public func setSecret(collection: String, item: String, to secret: StoredSecret) throws(SecretServiceError) {
        try limits.check(secretByteCount: secret.value.count, contentType: secret.contentType)
        let state = try unlockedState(of: collection)
        guard state.items[item] != nil else { throw .noSuchObject("no such item") }
        let sealed = try seal(secret, in: state, item: item)
        try modifyItem(collection: collection, item: item, changed: nil) { $0.secret = sealed }
    }

    // MARK: - Helpers

    private func modifyItem(collection: String, item: String, changed: ItemProperty?,
                            _ change: (inout StoredItem) -> Void) throws(SecretServiceError) {
        try unlockedState(of: collection)
        guard var stored = collections[collection]?.items[item] else { throw .noSuchObject("no such item") }
        change(&stored)
        let now = clock.now()
        stored.modified = now
        collections[collection]?.items[item] = stored
        collections[collection]?.modified = now
        var properties: Set<ItemProperty> = [.modified]
        if let changed { properties.insert(changed) }
        eventSink.yield(.itemChanged(collection: collection, item: item, properties))
        eventSink.yield(.collectionChanged(collection, [.modified]))
    }

    private func checkItem(label: String, attributes: [String: String], secret: StoredSecret) throws(SecretServiceError) {
        try limits.check(label: label)
        try limits.check(attributes: attributes)
        try limits.check(secretByteCount: secret.value.count, contentType: secret.contentType)
    }

    private func seal(_ secret: StoredSecret, in state: CollectionState, item: String) throws(SecretServiceError) -> SealedSecret {
        do {
            return try state.vault.seal(secret, binding: state.binding(item))
        } catch {
            throw .failed("the secret could not be sealed")
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Item operations of the store: create, read properties and ownership, change, delete.

public import SecretServiceProtocol
import SecretCrypto

extension SecretStore {
    // MARK: - Reading

    /// The items of a collection, oldest first.
    /// - Throws: ``SecretServiceError/noSuchObject(_:)``.
    public func itemIDs(in collection: String) throws(SecretServiceError) -> [String] {
        try state(of: collection).items.values.sorted { $0.sequence < $1.sequence }.map(\.id)
    }

    /// A snapshot of one item. While a persistent collection is locked its label and attributes are unknown (empty).
    /// - Throws: ``SecretServiceError/noSuchObject(_:)``.
    public func itemInfo(collection: String, item: String) throws(SecretServiceError) -> ItemInfo {
        let state = try state(of: collection)
        guard let stored = state.items[item] else { throw .noSuchObject("no such item") }
        return try state.info(of: stored)
    }

    /// Snapshots of several items in one visit to the store (a batch read costs one actor hop, not one per item).
    /// - Returns: one per address, in order: the snapshot, or `nil` for an item or collection that does not exist.
    /// - Throws: ``SecretServiceError/failed(_:)`` when an item's metadata cannot be decrypted.
    public func itemInfos(_ addresses: [(collection: String, item: String)]) throws(SecretServiceError)
        -> [ItemInfo?] {
        try addresses.map { (address) throws(SecretServiceError) -> ItemInfo? in
            guard let state = collections[address.collection], let stored = state.items[address.item] else {
                return nil
            }
            return try state.info(of: stored)
        }
    }

    /// Which application created the item and which others the user always allowed to use it. Sealed like the
    /// rest of the metadata, so only known while unlocked.
    /// - Throws: `noSuchObject`, `isLocked`.
    public func itemOwnership(collection: String, item: String) throws(SecretServiceError) -> ItemOwnership {
        let state = try unlockedState(of: collection)
        let ownership: ItemOwnership?
        do {
            ownership = try state.ownership(of: item)
        } catch {
            throw .failed("the item's metadata could not be decrypted: \(error)")
        }
        guard let ownership else { throw .noSuchObject("no such item") }
        return ownership
    }

    /// ``itemOwnership(collection:item:)`` of many items in one visit (a search's matches); `nil` for an item that
    /// is gone, whose collection is locked, or whose metadata cannot be opened.
    public func itemOwnerships(_ items: [(collection: String, item: String)]) -> [ItemOwnership?] {
        // A search's matches are mostly of one collection: looked up once per run of them, not once per item.
        var last: (id: String, state: CollectionState?)?
        return items.map { found in
            if last?.id != found.collection { last = (found.collection, collections[found.collection]) }
            guard let state = last?.state, !state.isLocked else { return nil }
            return try? state.ownership(of: found.item)
        }
    }

    /// Replaces the applications always allowed to use an item. Written to the file like any change of the item,
    /// but the item's and the collection's `Modified` stay: a decision about access is not a change of content.
    /// - Throws: `noSuchObject`, `isLocked`, `failed`.
    public func setAllowedApplications(_ allowed: [String], collection: String, item: String)
        async throws(SecretServiceError) {
        _ = try await changeAccess(collection: collection, item: item) { meta in
            guard meta.allowed != allowed else { return false }
            meta.allowed = allowed
            return true
        }
    }

    /// Records `application` as the creator of an item that has none (stored before creators were recorded, or
    /// imported), as ``setAllowedApplications(_:collection:item:)`` writes. The check and the write are one step of
    /// this actor, so two applications cannot both become the owner.
    /// - Returns: whether the item was adopted; `false` when it already had a creator.
    /// - Throws: `noSuchObject`, `isLocked`, `failed`.
    public func adoptItem(collection: String, item: String, by application: String) async throws(SecretServiceError)
        -> Bool {
        try await changeAccess(collection: collection, item: item) { meta in
            guard meta.creator == nil else { return false }
            meta.creator = application
            return true
        }
    }

    /// Rewrites an item's sealed metadata when `change` says it changed, keeping the item's and the collection's
    /// `Modified`.
    private func changeAccess(collection: String, item: String, _ change: (inout ItemMeta) -> Bool)
        async throws(SecretServiceError) -> Bool {
        await waitForCompaction(of: collection)
        let state = try unlockedState(of: collection)
        guard let stored = state.items[item], var meta = try openMeta(item, in: state) else {
            throw .noSuchObject("no such item")
        }
        guard change(&meta) else { return false }
        let collectionModified = state.modified
        let pending = try write(stored, meta: meta, secret: nil, in: state)
        collections[collection]?.modified = collectionModified
        try await settle(pending)
        return true
    }

    /// Whether an item exists.
    public func itemExists(collection: String, item: String) -> Bool {
        collections[collection]?.items[item] != nil
    }

    // MARK: - Writing

    /// Creates an item, or with `replace` updates in place the first (newest) item whose attributes contain all of
    /// `attributes`, as gnome-keyring and KeePassXC do.
    /// - Parameter creator: the application identity recorded in a new item's sealed metadata; a replaced item
    ///   keeps the creator it had.
    /// - Returns: the item's identifier and whether it is new.
    /// - Throws: `noSuchObject`, `isLocked`, `limitsExceeded`, `invalidArgs`, `failed`.
    public func createItem(in collection: String, label: String, attributes: [String: String],
                           secret: StoredSecret, replace: Bool, creator: String? = nil) async throws(SecretServiceError)
        -> (id: String, created: Bool) {
        await waitForCompaction(of: collection)
        try limits.check(label: label)
        try limits.check(attributes: attributes)
        try limits.check(secretByteCount: secret.value.count, contentType: secret.contentType)
        let link = try await syncLink(for: collection)
        let state = try unlockedState(of: collection)
        let now = clock.now()
        if replace, let existing = state.matches(attributes).first, let old = try openMeta(existing.id, in: state) {
            try limits.check(totalSecretBytes: storedSecretBytes(), adding: secret.value.count,
                             removing: existing.sealed.secretByteCount)
            var meta = ItemMeta(label: label, attributes: attributes, contentType: secret.contentType,
                                created: old.created, modified: now, creator: old.creator, syncItem: old.syncItem)
            prepareForSync(&meta, link: link)
            let pending = try write(existing, meta: meta, secret: secret.value, in: state)
            let journal = try journalPut(existing.id, meta: meta, secret: secret.value, link: link, in: collection)
            eventSink.yield(.itemChanged(collection: collection, item: existing.id, [.label, .attributes, .modified]))
            eventSink.yield(.collectionChanged(collection, [.modified]))
            try await settle(pending, journal: journal, of: collection)
            return (existing.id, false)
        }
        try limits.check(newItemIn: state.items.count)
        try limits.check(totalSecretBytes: storedSecretBytes(), adding: secret.value.count)
        let sequence = state.nextSequence
        let item = StoredItem(id: String(sequence), sequence: sequence, knownModified: nil,
                              sealed: SealedItem(tags: [], meta: SealedBlob(nonce: [], sealed: []),
                                                 secret: SealedBlob(nonce: [], sealed: [])))
        var meta = ItemMeta(label: label, attributes: attributes, contentType: secret.contentType, created: now,
                            modified: now, creator: creator)
        prepareForSync(&meta, link: link)
        let pending = try write(item, meta: meta, secret: secret.value, in: state)
        collections[collection]?.nextSequence = sequence + 1
        let journal = try journalPut(item.id, meta: meta, secret: secret.value, link: link, in: collection)
        eventSink.yield(.itemCreated(collection: collection, item: item.id))
        eventSink.yield(.collectionChanged(collection, [.items, .modified]))
        try await settle(pending, journal: journal, of: collection)
        return (item.id, true)
    }

    /// Deletes an item.
    /// - Throws: `noSuchObject`, `isLocked`, `failed`.
    public func deleteItem(collection: String, item: String) async throws(SecretServiceError) {
        await waitForCompaction(of: collection)
        let link = try await syncLink(for: collection)
        let state = try unlockedState(of: collection)
        guard state.items[item] != nil else { throw .noSuchObject("no such item") }
        let meta = link != nil ? try openMeta(item, in: state) : nil
        let pending = try persist(.delete(itemID: item), in: state)
        collections[collection]?.remove(item)
        collections[collection]?.modified = clock.now()
        compactIfWorthwhile(collection)
        markUsed(collection)
        let journal = try journalDelete(meta, link: link, in: collection)
        eventSink.yield(.itemDeleted(collection: collection, item: item))
        eventSink.yield(.collectionChanged(collection, [.items, .modified]))
        try await settle(pending, journal: journal, of: collection)
    }

    /// Renames an item.
    /// - Throws: `noSuchObject`, `isLocked`, `limitsExceeded`, `failed`.
    public func setLabel(collection: String, item: String, to label: String) async throws(SecretServiceError) {
        try limits.check(label: label)
        try await modify(collection: collection, item: item, changed: .label) { meta, _ in meta.label = label }
    }

    /// Replaces an item's attributes.
    /// - Throws: `noSuchObject`, `isLocked`, `limitsExceeded`, `invalidArgs`, `failed`.
    public func setAttributes(collection: String, item: String, to attributes: [String: String])
        async throws(SecretServiceError) {
        try limits.check(attributes: attributes)
        try await modify(collection: collection, item: item, changed: .attributes) { meta, _ in meta.attributes = attributes }
    }

    /// Replaces an item's secret and content type.
    /// - Throws: `noSuchObject`, `isLocked`, `limitsExceeded`, `failed`.
    public func setSecret(collection: String, item: String, to secret: StoredSecret) async throws(SecretServiceError) {
        await waitForCompaction(of: collection)
        try limits.check(secretByteCount: secret.value.count, contentType: secret.contentType)
        let replaced = collections[collection]?.items[item]?.sealed.secretByteCount ?? 0
        try limits.check(totalSecretBytes: storedSecretBytes(), adding: secret.value.count, removing: replaced)
        try await modify(collection: collection, item: item, changed: nil) { meta, value in
            meta.contentType = secret.contentType
            value = secret.value
        }
    }

    // MARK: - Helpers

    private func modify(collection: String, item: String, changed: ItemProperty?,
                        _ change: (inout ItemMeta, inout SecretBytes?) -> Void) async throws(SecretServiceError) {
        await waitForCompaction(of: collection)
        let link = try await syncLink(for: collection)
        let state = try unlockedState(of: collection)
        guard let stored = state.items[item], var meta = try openMeta(item, in: state) else {
            throw .noSuchObject("no such item")
        }
        var value: SecretBytes?
        change(&meta, &value)
        meta.modified = clock.now()
        prepareForSync(&meta, link: link)
        let pending = try write(stored, meta: meta, secret: value, in: state)
        let journal = try journalPut(item, meta: meta, secret: value, link: link, in: collection)
        var properties: Set<ItemProperty> = [.modified]
        if let changed { properties.insert(changed) }
        eventSink.yield(.itemChanged(collection: collection, item: item, properties))
        eventSink.yield(.collectionChanged(collection, [.modified]))
        try await settle(pending, journal: journal, of: collection)
    }

    /// An item's metadata, opened; `nil` when the item does not exist or the collection is locked.
    /// - Throws: `failed` when it cannot be decrypted.
    func openMeta(_ item: String, in state: CollectionState) throws(SecretServiceError) -> ItemMeta? {
        do {
            return try state.openMeta(item)
        } catch {
            throw .failed("the item's metadata could not be decrypted: \(error)")
        }
    }

    /// Seals the item's new metadata (and secret, when given), writes it to the collection's file first when it has
    /// one, then updates memory. A failed write leaves memory unchanged.
    /// - Returns: the write to ``settle(_:)`` before acknowledging it.
    func write(_ item: StoredItem, meta: ItemMeta, secret: SecretBytes?, in state: CollectionState)
        throws(SecretServiceError) -> PendingWrite? {
        guard let vault = state.vault else { throw .isLocked("the collection is locked") }
        var updated = item
        updated.knownModified = meta.modified
        let record: ItemRecord
        do {
            let sealedSecret = try secret.map { try vault.sealSecret($0, item: item.id) }
                ?? item.sealed.secret(in: state.image)
            let tags = try state.tags(for: meta.attributes)
            let sealedMeta = try vault.sealMeta(meta, item: item.id)
            updated.sealed = SealedItem(tags: tags, meta: sealedMeta, secret: sealedSecret)
            record = ItemRecord(id: updated.id, sequence: updated.sequence, tags: tags.map(\.bytes), meta: sealedMeta,
                                secret: sealedSecret)
        } catch {
            throw .failed("the item could not be encrypted: \(error)")
        }
        let pending = try persist(.item(record), in: state)
        collections[state.id]?.insert(updated)
        collections[state.id]?.modified = meta.modified
        compactIfWorthwhile(state.id)
        markUsed(state.id)
        return pending
    }
}

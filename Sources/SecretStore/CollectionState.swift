// SPDX-License-Identifier: Apache-2.0
// One collection's items, indexes, keys and file; a value owned by the SecretStore actor.

import SecretCrypto
import SecretServiceProtocol

/// One stored item. Its secret is always sealed; its metadata is in clear only while the collection is unlocked.
struct StoredItem {
    var id: String
    /// Creation order within the collection; breaks ties between items modified in the same second.
    var sequence: UInt64
    /// `nil` while a persistent collection is locked.
    var meta: ItemMeta?
    /// The metadata as sealed in the file (persistent collections only).
    var sealedMeta: SealedBlob?
    var secret: SealedBlob
    /// Attribute tags, for searching while locked (persistent collections only).
    var tags: [[UInt8]]

    var modified: UInt64 { meta?.modified ?? 0 }
}

/// The file side of a persistent collection.
struct CollectionFile {
    let path: String
    var header: FileHeader
    let indexKey: SecretBytes
    /// The wraps of the master key, by slot number; never empty.
    var slots: [KeySlot]
    /// Open while unlocked; appends go through it.
    var writer: JournalWriter?
    /// Records in the file, to decide when compaction pays.
    var recordCount: Int
}

/// A collection: its metadata, items, indexes and, while unlocked, its keys. A class, owned by the store actor: as a
/// value, any write that still held a copy would duplicate the whole item table (copy on write), making each write
/// cost grow with the collection.
final class CollectionState {
    var id: String
    var label: String
    var created: UInt64
    var modified: UInt64
    var isLocked = false
    /// Changed only through ``insert(_:)`` and ``remove(_:)``, which keep ``sealedSecretBytes`` in step.
    private(set) var items: [String: StoredItem] = [:]
    /// The sealed secrets' sizes added up, kept as items come and go so the store-wide limit costs nothing per write.
    private(set) var sealedSecretBytes = 0
    var nextSequence: UInt64 = 1
    /// Clear attribute index; empty while locked.
    var index = AttributeIndex()
    /// Tag index of persistent collections, valid locked or not.
    var tagIndex = AttributeIndex()
    /// Present while unlocked (always, for in-memory collections).
    var vault: SecretVault?
    var keys: CollectionKeys?
    var file: CollectionFile?
    /// Set while the file is being rewritten off the store's thread (see ``SecretStore/compactIfWorthwhile(_:)``).
    var isCompacting = false
    /// Those who wait for the compaction to end before they touch the file.
    var compactionWaiters: [CheckedContinuation<Void, Never>] = []
    /// ``UsageClock`` stamps of the last use and the last unlock, which auto-lock deadlines count from.
    var lastUsed: Duration = .zero
    var unlockedAt: Duration = .zero

    var isInMemory: Bool { file == nil }

    init(id: String, label: String, created: UInt64, modified: UInt64, vault: SecretVault?, file: CollectionFile?) {
        self.id = id
        self.label = label
        self.created = created
        self.modified = modified
        self.vault = vault
        self.file = file
    }

    func info() -> CollectionInfo {
        CollectionInfo(id: id, label: label, created: created, modified: modified, isLocked: isLocked,
                       isInMemory: isInMemory)
    }

    func info(of item: StoredItem) -> ItemInfo {
        ItemInfo(collection: id, id: item.id, label: item.meta?.label ?? "", attributes: item.meta?.attributes ?? [:],
                 contentType: item.meta?.contentType ?? "", created: item.meta?.created ?? 0,
                 modified: item.meta?.modified ?? 0, isLocked: isLocked)
    }

    /// Items matching every pair of `query`, newest `Modified` first (ties: newest created first). A locked
    /// persistent collection answers from its attribute tags.
    func matches(_ query: [String: String]) -> [StoredItem] {
        let candidates: Set<String>?
        if vault == nil, let file {
            let tags = AttributeTags.tags(for: query, indexKey: file.indexKey)
            candidates = tagIndex.candidates(forTags: tags)
        } else {
            candidates = index.candidates(for: query)
        }
        let found = candidates.map { $0.compactMap { items[$0] } } ?? Array(items.values)
        return found.sorted(by: Self.newestFirst)
    }

    static func newestFirst(_ a: StoredItem, _ b: StoredItem) -> Bool {
        a.modified != b.modified ? a.modified > b.modified : a.sequence > b.sequence
    }

    func insert(_ item: StoredItem) {
        if let old = items[item.id] {
            unindex(old)
            sealedSecretBytes -= old.secret.sealed.count
        }
        items[item.id] = item
        sealedSecretBytes += item.secret.sealed.count
        if let meta = item.meta { index.insert(item.id, attributes: meta.attributes) }
        tagIndex.insert(item.id, tags: item.tags)
    }

    /// Drops every item's clear metadata (a lock); sealed data, tags and sizes stay.
    func forgetMetadata() {
        for id in items.keys { items[id]?.meta = nil }
    }

    @discardableResult
    func remove(_ itemID: String) -> StoredItem? {
        guard let item = items.removeValue(forKey: itemID) else { return nil }
        sealedSecretBytes -= item.secret.sealed.count
        unindex(item)
        return item
    }

    private func unindex(_ item: StoredItem) {
        if let meta = item.meta { index.remove(item.id, attributes: meta.attributes) }
        tagIndex.remove(item.id, tags: item.tags)
    }
}

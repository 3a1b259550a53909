// SPDX-License-Identifier: Apache-2.0
// One collection's items, index and secrets; a plain value owned by the SecretStore actor.

import SecretServiceProtocol

/// One stored item.
struct StoredItem: Sendable {
    var id: String
    /// Creation order within the collection; breaks ties between items modified in the same second.
    var sequence: UInt64
    var label: String
    var attributes: [String: String]
    var created: UInt64
    var modified: UInt64
    var secret: SealedSecret
}

/// A collection: its metadata, items, attribute index and vault.
struct CollectionState: Sendable {
    var id: String
    var label: String
    var created: UInt64
    var modified: UInt64
    var isLocked = false
    var isInMemory: Bool
    var items: [String: StoredItem] = [:]
    var nextSequence: UInt64 = 1
    var index = AttributeIndex()
    let vault = SecretVault()

    func info() -> CollectionInfo {
        CollectionInfo(id: id, label: label, created: created, modified: modified, isLocked: isLocked,
                       isInMemory: isInMemory)
    }

    func info(of item: StoredItem) -> ItemInfo {
        ItemInfo(collection: id, id: item.id, label: item.label, attributes: item.attributes,
                 contentType: item.secret.contentType, created: item.created, modified: item.modified,
                 isLocked: isLocked)
    }

    /// Items matching every pair of `query`, newest `Modified` first (ties: newest created first).
    func matches(_ query: [String: String]) -> [StoredItem] {
        let found: [StoredItem]
        if let candidates = index.candidates(for: query) {
            found = candidates.compactMap { items[$0] }
        } else {
            found = Array(items.values)
        }
        return found.sorted(by: Self.newestFirst)
    }

    static func newestFirst(_ a: StoredItem, _ b: StoredItem) -> Bool {
        a.modified != b.modified ? a.modified > b.modified : a.sequence > b.sequence
    }

    /// The identity bound into an item's sealed secret.
    func binding(_ item: String) -> String { id + "/" + item }

    mutating func insert(_ item: StoredItem) {
        items[item.id] = item
        index.insert(item.id, attributes: item.attributes)
    }

    mutating func remove(_ itemID: String) -> StoredItem? {
        guard let item = items.removeValue(forKey: itemID) else { return nil }
        index.remove(itemID, attributes: item.attributes)
        return item
    }

    mutating func replaceAttributes(of itemID: String, with attributes: [String: String]) {
        guard let old = items[itemID]?.attributes else { return }
        index.remove(itemID, attributes: old)
        items[itemID]?.attributes = attributes
        index.insert(itemID, attributes: attributes)
    }
}

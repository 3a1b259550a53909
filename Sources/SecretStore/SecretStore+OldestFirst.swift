// SPDX-License-Identifier: Apache-2.0
// The search behind io.coffer.Items.SearchOldestFirst: matches in creation order, each read from its opened metadata
// once, with no snapshot of the item built.

public import SecretServiceProtocol

/// One match of ``SecretStore/searchOldestFirst(_:excluding:)``.
public struct OrderedMatch: Sendable, Equatable {
    public var ref: ItemRef
    /// Whether the item has any pair of the search's `excluding`. Always `false` in a locked collection, whose
    /// attributes cannot be read.
    public var isExcluded: Bool
}

extension SecretStore {
    /// Items of every collection whose attributes contain all of `query`. Those of unlocked collections come first,
    /// in creation order: `Created`, then the identifier the collection gave the item (a shorter one first, as
    /// numbers, then by text), then the collection. Those of locked collections follow, unordered.
    ///
    /// A search that returns a hundred items reads each one's creation time and attributes once, from the metadata
    /// the collection keeps opened, instead of building a full snapshot of each (``itemInfos(_:)``) and sorting
    /// twice.
    /// - Throws: ``SecretServiceError/failed(_:)`` when an item's metadata cannot be decrypted.
    public func searchOldestFirst(_ query: [String: String], excluding: [String: String])
        throws(SecretServiceError) -> [OrderedMatch] {
        var readable: [(match: OrderedMatch, created: UInt64)] = []
        var locked: [OrderedMatch] = []
        for state in collections.values {
            let ids = state.matchingIDs(query)
            guard !state.isLocked else {
                locked += ids.map { OrderedMatch(ref: ItemRef(collection: state.id, item: $0, isLocked: true),
                                                 isExcluded: false) }
                continue
            }
            readable.reserveCapacity(readable.count + ids.count)
            for id in ids {
                let meta: ItemMeta?
                do {
                    meta = try state.openMeta(id)
                } catch {
                    throw .failed("the item's metadata could not be decrypted: \(error)")
                }
                let excluded = meta.map { meta in excluding.contains { meta.attributes[$0.key] == $0.value } } ?? false
                readable.append((OrderedMatch(ref: ItemRef(collection: state.id, item: id, isLocked: false),
                                              isExcluded: excluded),
                                 meta?.created ?? 0))
            }
        }
        readable.sort { a, b in
            if a.created != b.created { return a.created < b.created }
            let x = a.match.ref, y = b.match.ref
            if x.item.utf8.count != y.item.utf8.count { return x.item.utf8.count < y.item.utf8.count }
            return x.item != y.item ? x.item < y.item : x.collection < y.collection
        }
        return readable.map(\.match) + locked
    }
}

// SPDX-License-Identifier: Apache-2.0
// An inverted index from attribute tags to items, so searches cost the size of the answer.

/// The keyed hash of one attribute pair (see ``AttributeTags``), held inline: sixteen bytes, no allocation.
struct AttributeTag: Hashable, Sendable {
    private var high: UInt64
    private var low: UInt64

    /// - Parameter bytes: exactly ``FileRecord/tagSize`` bytes.
    init(_ bytes: some Collection<UInt8>) {
        precondition(bytes.count == FileRecord.tagSize, "an attribute tag has \(FileRecord.tagSize) bytes")
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (offset, byte) in bytes.enumerated() {
            if offset < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
        }
        self.high = high
        self.low = low
    }

    /// The tag as stored in a file.
    var bytes: [UInt8] {
        (0..<8).reversed().map { UInt8(truncatingIfNeeded: high >> ($0 * 8)) }
            + (0..<8).reversed().map { UInt8(truncatingIfNeeded: low >> ($0 * 8)) }
    }

    /// The order tags are stored in (their bytes compared lexicographically).
    static func < (a: AttributeTag, b: AttributeTag) -> Bool { (a.high, a.low) < (b.high, b.low) }
}

/// Maps each attribute tag to the items carrying it. A query intersects the smallest posting set with the rest,
/// so a lookup among thousands of items touches only the candidates, never the whole collection.
///
/// Searches go through the tags whether the collection is locked or not, so no clear (name, value) index is kept
/// beside it. Most tags belong to one item (an account name, a URL), so a posting of one item is held inline
/// rather than as a set of its own: at the per-collection item limit that is most of the index's memory.
struct TagIndex: Sendable {
    private enum Posting: Sendable {
        case one(String)
        case many(Set<String>)

        var items: Set<String> {
            switch self {
            case .one(let item): [item]
            case .many(let items): items
            }
        }
    }

    private var postings: [AttributeTag: Posting] = [:]

    /// Records `item` under each of its tags.
    mutating func insert(_ item: String, tags: [AttributeTag]) {
        for tag in tags {
            switch postings[tag] {
            case nil: postings[tag] = .one(item)
            case .one(let other) where other == item: break
            case .one(let other): postings[tag] = .many([other, item])
            case .many(var items):
                postings[tag] = nil  // keeps the set uniquely referenced, so the insertion does not copy it
                items.insert(item)
                postings[tag] = .many(items)
            }
        }
    }

    /// Forgets `item` under each of the given tags (its tags before removal or change).
    mutating func remove(_ item: String, tags: [AttributeTag]) {
        for tag in tags {
            switch postings[tag] {
            case nil: break
            case .one(let other): if other == item { postings[tag] = nil }
            case .many(var items):
                postings[tag] = nil
                items.remove(item)
                if items.count == 1, let last = items.first {
                    postings[tag] = .one(last)
                } else if !items.isEmpty {
                    postings[tag] = .many(items)
                }
            }
        }
    }

    /// The items carrying every tag; `nil` for no tags (everything matches).
    func candidates(forTags tags: [AttributeTag]) -> Set<String>? {
        guard !tags.isEmpty else { return nil }
        var sets: [Set<String>] = []
        sets.reserveCapacity(tags.count)
        for tag in tags {
            guard let posting = postings[tag] else { return [] }
            sets.append(posting.items)
        }
        sets.sort { $0.count < $1.count }
        var result = sets[0]
        for set in sets.dropFirst() where !result.isEmpty { result.formIntersection(set) }
        return result
    }
}

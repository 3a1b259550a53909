// SPDX-License-Identifier: Apache-2.0
// An inverted index from (name, value) attribute pairs to items, so searches cost the size of the answer.

/// Maps each attribute pair to the items carrying it. A query intersects the smallest posting set with the rest,
/// so a lookup among thousands of items touches only the candidates, never the whole collection.
struct AttributeIndex: Sendable {
    private struct Pair: Hashable, Sendable {
        var name: String
        var value: String
    }

    private var postings: [Pair: Set<String>] = [:]
    /// Postings by attribute tag, for persistent collections (searchable while locked).
    private var tagPostings: [[UInt8]: Set<String>] = [:]

    /// Records `item` under each of its attributes.
    mutating func insert(_ item: String, attributes: [String: String]) {
        for (name, value) in attributes {
            postings[Pair(name: name, value: value), default: []].insert(item)
        }
    }

    /// Forgets `item` under each of the given attributes (its attributes before removal or change).
    mutating func remove(_ item: String, attributes: [String: String]) {
        for (name, value) in attributes {
            let key = Pair(name: name, value: value)
            postings[key]?.remove(item)
            if postings[key]?.isEmpty == true { postings[key] = nil }
        }
    }

    /// The items carrying every pair of `query`; `nil` for the empty query, which matches everything.
    func candidates(for query: [String: String]) -> Set<String>? {
        guard !query.isEmpty else { return nil }
        var sets: [Set<String>] = []
        sets.reserveCapacity(query.count)
        for (name, value) in query {
            guard let set = postings[Pair(name: name, value: value)] else { return [] }
            sets.append(set)
        }
        sets.sort { $0.count < $1.count }
        var result = sets[0]
        for set in sets.dropFirst() where !result.isEmpty {
            result.formIntersection(set)
        }
        return result
    }

    // MARK: - Tags

    mutating func insert(_ item: String, tags: [[UInt8]]) {
        for tag in tags { tagPostings[tag, default: []].insert(item) }
    }

    mutating func remove(_ item: String, tags: [[UInt8]]) {
        for tag in tags {
            tagPostings[tag]?.remove(item)
            if tagPostings[tag]?.isEmpty == true { tagPostings[tag] = nil }
        }
    }

    /// The items carrying every tag; `nil` for no tags (everything matches).
    func candidates(forTags tags: [[UInt8]]) -> Set<String>? {
        guard !tags.isEmpty else { return nil }
        var sets = tags.map { tagPostings[$0] ?? [] }
        sets.sort { $0.count < $1.count }
        var result = sets[0]
        for set in sets.dropFirst() where !result.isEmpty { result.formIntersection(set) }
        return result
    }
}

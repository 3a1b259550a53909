// SPDX-License-Identifier: Apache-2.0
// A search that returns only secrets (or persistent references): on cofferd, one search and one GetSecrets.

import DBusWire
import Foundation
import CofferKeychainConfiguration
import SecretServiceClient

extension OperationContext {
    /// The result entries of a search that returns data or persistent references and nothing that needs an item's
    /// properties, read without them: cofferd's `SearchOldestFirst` gives the matches already in creation order and
    /// without the synchronizable items the query leaves out, so the search's own conditions are all the re-check
    /// would apply, and one `GetSecrets` follows. `nil` whenever that does not hold, for ``copyMatching(_:)`` to take
    /// the usual way: a query with a condition the exact search cannot carry (``searchRulesOutAlone(_:schema:)``,
    /// or text a base64-stored value could share, below), a provider without that search, locked candidates (the
    /// usual way unlocks them), no match while other programs' items are adopted (the usual way looks for them), or
    /// an item gone meanwhile. No match otherwise is `errSecItemNotFound` at once: the usual way's own search would
    /// find the same nothing (or only items the exclusion left out, which its re-check leaves out too).
    /// - Throws: `errSecItemNotFound`, or the client's errors.
    func secretsOnlyEntries(_ query: ItemQuery) async throws -> [ResultEntry]? {
        guard query.returnData || query.returnPersistentRef, !query.returnAttributes, !query.returnRef,
              query.persistentReference == nil, let itemClass = query.itemClass, itemClass != .identity,
              let schema = ItemSchema.forClass(itemClass), searchRulesOutAlone(query, schema: schema),
              try exactSearchDecidesBlobs(query, schema: schema)
        else { return nil }
        let exact = try searchAttributes(query, schema: schema)
        let excluding = query.synchronizable == .nonSynchronizable ? [ItemSchema.syncAttribute: "true"] : [:]
        guard let found = try await client.searchOldestFirst(exact, excluding: excluding), found.locked.isEmpty
        else { return nil }
        if found.unlocked.isEmpty {
            if configuration.adoptsForeignItems { return nil }
            throw KeychainFailure(errSecItemNotFound)
        }
        let paths = query.limit.maximum.map { Array(found.unlocked.prefix($0)) } ?? found.unlocked
        let read = query.returnData ? try await secretData(of: paths) : [:]
        var entries: [ResultEntry] = []
        entries.reserveCapacity(paths.count)
        for path in paths {
            var data: Data?
            if query.returnData {
                guard let secret = read[path] else { return nil }
                data = secret
            }
            entries.append(ResultEntry(
                data: data, attributes: nil,
                persistentReference: query.returnPersistentRef ? PersistentReference.data(for: path) : nil,
                reference: nil))
        }
        return entries
    }

    /// Whether the exact search alone decides the query's base64-capable attributes. The re-check also compares how
    /// such a value was stored (``matches(_:_:)``: Data kept as base64 never matches the same text given as a
    /// String), which the search cannot see; it is moot only when the query's value is text no base64 encoding
    /// produces.
    private func exactSearchDecidesBlobs(_ query: ItemQuery, schema: ItemSchema) throws -> Bool {
        for (key, value) in query.attributes {
            guard let spec = schema.attributes[key], spec.kind == .blob else { continue }
            let encoded = try AttributeCodec.encode(value, as: spec)
            if encoded.marker == "b" || Self.couldBeBase64(encoded.text) { return false }
        }
        return true
    }

    /// Whether `text` has the shape of `Data.base64EncodedString()`'s output: a multiple of four characters from
    /// its alphabet.
    static func couldBeBase64(_ text: String) -> Bool {
        text.utf8.count % 4 == 0 && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="):
                true
            default:
                false
            }
        }
    }
}

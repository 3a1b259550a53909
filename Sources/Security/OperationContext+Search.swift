// SPDX-License-Identifier: Apache-2.0
// Finding the items a query matches: an exact SearchItems, then a client-side re-check (mapping §6.6).

import DBusWire
import Foundation
import SecretServiceClient
import SecretServiceProtocol
import CofferKeychainConfiguration

extension OperationContext {
    /// Every item `query` matches, in creation order, before any limit.
    /// - Throws: ``KeychainFailure`` (`errSecItemNotFound` for an unknown persistent reference, -25308 for
    ///   locked items without UI, …) or the client's errors.
    func findItems(_ query: ItemQuery) async throws -> [StoredItem] {
        try await findItems(query, prefetchingSecrets: false).items
    }

    /// ``findItems(_:)``; with `prefetchingSecrets`, also the candidates' secrets, asked for together with their
    /// properties where the search alone rules out what the query leaves out (``searchRulesOutAlone(_:schema:)``)
    /// and the query's limit keeps every candidate.
    func findItems(_ query: ItemQuery, prefetchingSecrets: Bool) async throws
        -> (items: [StoredItem], secrets: PrefetchedSecrets?) {
        let candidates: [StoredItem]
        var prefetched: PrefetchedSecrets?
        var exact: [String: String] = [:]
        if let reference = query.persistentReference {
            guard let path = PersistentReference.path(from: reference) else { throw KeychainFailure(errSecParam) }
            candidates = try await properties(of: [path], expected: query.itemClass)
            if let item = candidates.first {
                // Now that the class is known, the query's attributes must belong to it.
                try query.validateAttributes(against: item.schema, role: .search)
                if item.properties.locked { _ = try await unlocked([path]) }
            }
        } else {
            guard let itemClass = query.itemClass, let schema = ItemSchema.forClass(itemClass) else {
                throw KeychainFailure(errSecParam)
            }
            exact = try searchAttributes(query, schema: schema)
            let found = try await client.searchItems(exact)
            let readable = found.unlocked + (try await unlocked(found.locked))
            if prefetchingSecrets, !readable.isEmpty, readable.count <= query.limit.maximum ?? .max,
               searchRulesOutAlone(query, schema: schema) {
                async let secrets = prefetchSecrets(of: readable)
                candidates = try await properties(of: readable, expected: itemClass)
                prefetched = await secrets
            } else {
                candidates = try await properties(of: readable, expected: itemClass)
            }
        }
        var items = candidates.filter { matches(query, $0) }
        if items.isEmpty, configuration.adoptsForeignItems, let schema = query.itemClass.flatMap(ItemSchema.forClass),
           query.persistentReference == nil {
            items = try await foreignItems(like: exact, schema: schema).filter { matches(query, $0) }
        }
        return (StoredItem.inCreationOrder(items), prefetched)
    }

    /// Items other programs wrote (secret-tool, python keyring, …) that look like `exact`'s primary key: generic
    /// passwords by `{service, account}` or `{service, username}`, internet passwords by `{server, user,
    /// protocol}` (whichever `exact` has), adopted as items of the default access group (mapping §6.9).
    func foreignItems(like exact: [String: String], schema: ItemSchema) async throws -> [StoredItem] {
        var searches: [[String: String]] = []
        switch schema.itemClass {
        case .genericPassword:
            let base = exact.filter { $0.key == "service" }
            if let account = exact["account"] {
                searches = [base.merging(["account": account]) { $1 }, base.merging(["username": account]) { $1 }]
            } else if !base.isEmpty {
                searches = [base]
            }
        case .internetPassword:
            if exact["server"] != nil { searches = [exact.filter { ["server", "user", "protocol"].contains($0.key) }] }
        default:
            break
        }
        var seen: Set<ObjectPath> = []
        var adopted: [StoredItem] = []
        for attributes in searches {
            let found = try await client.searchItems(attributes)
            let readable = found.unlocked + (try await unlocked(found.locked))
            for (path, properties) in try await readableProperties(of: readable.filter { seen.insert($0).inserted }) {
                if let item = StoredItem(adopting: path, properties: properties, schema: schema,
                                         accessGroup: configuration.resolvedAccessGroup,
                                         mirrorsUsername: configuration.mirrorsUsername) {
                    adopted.append(item)
                }
            }
        }
        return adopted
    }

    /// The exact attributes for `Service.SearchItems`: schema, class and every attribute that has an exact
    /// encoding. Everything else is left to ``matches(_:_:)``.
    func searchAttributes(_ query: ItemQuery, schema: ItemSchema) throws(KeychainFailure) -> [String: String] {
        var exact = [
            ItemSchema.schemaAttribute: schema.schemaName, ItemSchema.classAttribute: schema.itemClass.rawValue,
        ]
        for (key, value) in query.attributes {
            guard let spec = schema.attributes[key], let name = spec.name else { continue }
            switch spec.kind {
            case .synchronizable:
                if query.synchronizable == .synchronizable { exact[name] = "true" }
            case .text where query.caseInsensitive, .blob where query.caseInsensitive:
                continue
            default:
                exact[name] = try AttributeCodec.encode(value, as: spec).text
            }
        }
        let groups = searchedGroups
        if query.attributes["agrp"] == nil, groups.count == 1 { exact[ItemSchema.groupAttribute] = groups[0] }
        return exact
    }

    /// Whether `item` satisfies every condition of `query`, checked here because providers differ (KeePassXC
    /// matches by regex, some ignore missing attributes) and because some conditions have no exact form.
    func matches(_ query: ItemQuery, _ item: StoredItem) -> Bool {
        switch query.synchronizable {
        case .nonSynchronizable: if item.isSynchronizable { return false }
        case .synchronizable: if !item.isSynchronizable { return false }
        case .any: break
        }
        if query.attributes["agrp"] == nil, !searchedGroups.contains(item.accessGroup) {
            return false
        }
        let markers = item.markers
        for (key, value) in query.attributes {
            guard let spec = item.schema.attributes[key] else { return false }
            switch spec.kind {
            case .synchronizable, .accessControl:
                continue
            case .label:
                guard case .string(let label) = value, equal(label, item.properties.label, query) else { return false }
            case .date:
                guard case .date(let date) = value else { return false }
                let stored = key == "cdat" ? item.properties.created : item.properties.modified
                if UInt64(max(0, date.timeIntervalSince1970.rounded(.down))) != stored { return false }
            default:
                guard let name = spec.name, let encoded = try? AttributeCodec.encode(value, as: spec),
                      let stored = item.attributes[name], equal(encoded.text, stored, query)
                else { return false }
                // Base64-stored bytes only match Data, never the same text given as a String.
                if (encoded.marker == "b") != (markers[key] == "b") { return false }
            }
        }
        return true
    }

    private func equal(_ wanted: String, _ stored: String, _ query: ItemQuery) -> Bool {
        query.caseInsensitive ? wanted.caseInsensitiveCompare(stored) == .orderedSame : wanted == stored
    }
}

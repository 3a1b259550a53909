// SPDX-License-Identifier: Apache-2.0
// The four SecItem operations over Secret Service: copy-matching, add, update and delete (mapping §6.6).

import DBusWire
import Foundation
import SecretCrypto
import SecretServiceClient
import CofferKeychainConfiguration

extension OperationContext {
    // MARK: - SecItemCopyMatching

    /// Finds, limits and shapes the matches; `nil` when the query asked for nothing back (an existence check).
    func copyMatching(_ query: ItemQuery) async throws -> ItemResult? {
        if query.itemClass == .identity { try await answerIdentityQuery(query) }
        if let entries = try await secretsOnlyEntries(query) {
            return ItemResult(entries, for: query, isList: query.limit != .one)
        }
        let found = try await findItems(query, prefetchingSecrets: query.returnData || query.returnsReference)
        var items = found.items
        guard !items.isEmpty else { throw KeychainFailure(errSecItemNotFound) }
        if let maximum = query.limit.maximum { items = Array(items.prefix(maximum)) }
        guard query.producesResult else { return nil }
        return ItemResult(try await resultEntries(for: items, query: query, prefetched: found.secrets), for: query,
                          isList: query.limit != .one)
    }

    // MARK: - SecItemAdd

    /// Adds one item unless an item with the same primary key exists (`errSecDuplicateItem`).
    func add(_ query: ItemQuery) async throws -> ItemResult? {
        guard let itemClass = query.itemClass, let schema = ItemSchema.forClass(itemClass) else {
            throw KeychainFailure(errSecParam)
        }
        let (attributes, label) = try newItemAttributes(query, schema: schema)
        let collection = try await writableCollection(synchronizable: attributes[ItemSchema.syncAttribute] == "true")
        if try await hasPrimaryKeyCollision(attributes, schema: schema, excluding: []) {
            throw KeychainFailure(errSecDuplicateItem)
        }
        // With adoption on, another program's item with this key is found by searches, so it is a duplicate too.
        if configuration.adoptsForeignItems {
            let key = StoredItem.primaryKey(of: attributes, schema: schema)
            if try await foreignItems(like: attributes, schema: schema).contains(where: { $0.primaryKey == key }) {
                throw KeychainFailure(errSecDuplicateItem)
            }
        }
        let value = query.valueData ?? Data()
        let path = try await client.createItem(
            in: collection, label: label, attributes: attributes, secret: try SecretBytes(copying: value),
            contentType: itemClass == .certificate ? "application/pkix-cert"
                : itemClass == .key ? "application/octet-stream" : Self.contentType(of: value),
            replace: false)
        guard query.producesResult else { return nil }
        guard let item = try await properties(of: [path], expected: itemClass).first else {
            throw KeychainFailure(errSecInternalComponent)
        }
        var entry = try await resultEntries(for: [item], query: ItemQuery.withoutData(query))[0]
        if query.returnData { entry.data = value }
        if query.returnsReference {
            entry.reference = ItemReference(itemClass: itemClass, data: value, attributes: item.appleAttributes)
        }
        return ItemResult([entry], for: query, isList: false)
    }

    /// The complete attribute map and label of a new item: markers, every primary-key attribute (defaults
    /// included, so a PK check is one exact search), and the attributes given.
    func newItemAttributes(_ query: ItemQuery, schema: ItemSchema) throws(KeychainFailure)
        -> (attributes: [String: String], label: String) {
        var attributes = [
            ItemSchema.schemaAttribute: schema.schemaName, ItemSchema.classAttribute: schema.itemClass.rawValue,
            ItemSchema.versionAttribute: "1", ItemSchema.groupAttribute: configuration.resolvedAccessGroup,
            "keychain:pdmn": schema.itemClass == .certificate ? "dk" : "ak",  // Apple's defaults per class
        ]
        for spec in schema.primaryKey where spec.kind != .synchronizable && spec.kind != .accessGroup {
            if let name = spec.name { attributes[name] = spec.primaryKeyDefault }
        }
        var markers: [String: Character] = [:]
        var label: String?
        for (key, value) in query.attributes {
            guard let spec = schema.attributes[key] else { throw KeychainFailure(errSecNoSuchAttr) }
            let encoded = try AttributeCodec.encode(value, as: spec)
            switch spec.kind {
            case .label: label = encoded.text
            case .synchronizable: if encoded.text == "true" { attributes[ItemSchema.syncAttribute] = "true" }
            default:
                guard let name = spec.name else { continue }
                attributes[name] = encoded.text
                if let marker = encoded.marker { markers[key] = marker }
            }
        }
        if !markers.isEmpty { attributes[ItemSchema.typesAttribute] = AttributeCodec.formatTypes(markers) }
        // Listed access groups stand in for the keychain-access-groups entitlement: iOS refuses a write elsewhere.
        if let listed = configuration.listedAccessGroups, let group = attributes[ItemSchema.groupAttribute],
           !listed.contains(group) {
            throw KeychainFailure(errSecMissingEntitlement)
        }
        switch schema.itemClass {
        case .genericPassword:
            if configuration.mirrorsUsername { attributes[ItemSchema.mirrorAttribute] = attributes["account"] }
            return (attributes, label ?? Self.firstNonEmpty(attributes["service"], attributes["account"]))
        case .certificate:
            let summary = try certificateAttributes(query.valueData, into: &attributes)
            return (attributes, label ?? summary)
        case .key:
            try keyAttributes(query, schema: schema, into: &attributes)
            let tag = attributes["keychain:atag"].flatMap { query.attributes["atag"] == .string($0) ? $0 : nil }
            return (attributes, label ?? tag ?? "")
        default:
            return (attributes, label ?? Self.firstNonEmpty(attributes["server"], attributes["user"]))
        }
    }

    private static func firstNonEmpty(_ primary: String?, _ fallback: String?) -> String {
        (primary ?? "").isEmpty ? fallback ?? "" : primary ?? ""
    }

    /// Whether another item (not in `excluding`) already has the primary key of `attributes`: one exact search on
    /// the PK attributes, then a client-side re-check of each hit.
    func hasPrimaryKeyCollision(_ attributes: [String: String], schema: ItemSchema, excluding: Set<ObjectPath>)
        async throws -> Bool {
        var exact = [
            ItemSchema.schemaAttribute: schema.schemaName, ItemSchema.classAttribute: schema.itemClass.rawValue,
        ]
        for spec in schema.primaryKey {
            if let name = spec.name, let value = attributes[name] { exact[name] = value }
        }
        let found = try await client.searchItems(exact)
        let key = StoredItem.primaryKey(of: attributes, schema: schema)
        let others = (found.unlocked + found.locked).filter { !excluding.contains($0) }
        return try await properties(of: others, expected: schema.itemClass).contains { $0.primaryKey == key }
    }

    /// `text/plain` exactly when the bytes are UTF-8 without NUL (what libsecret and secret-tool read as text).
    static func contentType(of value: Data) -> String {
        if let text = String(data: value, encoding: .utf8), !text.utf8.contains(0) { return "text/plain" }
        return "application/octet-stream"
    }

    // MARK: - SecItemDelete

    /// Deletes every match.
    func delete(_ query: ItemQuery) async throws {
        if query.itemClass == .identity { try await answerIdentityQuery(query) }
        let items = try await findItems(query)
        guard !items.isEmpty else { throw KeychainFailure(errSecItemNotFound) }
        for item in items {
            try await client.deleteItem(item.path)
        }
    }
}

extension ItemQuery {
    /// `query` without `kSecReturnData` and `kSecReturnRef`, for building an add's result from the secret already in hand.
    static func withoutData(_ query: ItemQuery) -> ItemQuery {
        var copy = query
        copy.returnData = false
        copy.returnRef = false  // a certificate or key reference is the secret too
        return copy
    }
}

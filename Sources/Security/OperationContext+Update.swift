// SPDX-License-Identifier: Apache-2.0
// SecItemUpdate: rewrite every match, refusing primary-key collisions before anything is written.

import DBusWire
import Foundation
import SecretCrypto
import SecretServiceClient
import CofferKeychainConfiguration

extension OperationContext {
    /// One item's planned change.
    private struct Change {
        let item: StoredItem
        let attributes: [String: String]
        let label: String
    }

    /// Applies `update` to every item `query` matches (DPK semantics: the limit is ignored).
    /// - Throws: `errSecItemNotFound` when nothing matches; `errSecDuplicateItem` when the change would give two
    ///   items one primary key (checked for all items before the first write).
    func update(_ query: ItemQuery, with update: ItemQuery) async throws {
        let items = try await findItems(query)
        guard !items.isEmpty else { throw KeychainFailure(errSecItemNotFound) }
        var changes: [Change] = []
        for item in items {
            if let updateClass = update.itemClass, updateClass != item.schema.itemClass {
                throw KeychainFailure(errSecParam)
            }
            try update.validateAttributes(against: item.schema, role: .updateAttributes)
            let derived: Set<String>? = switch item.schema.itemClass {
            case .certificate: ItemSchema.derivedCertificateKeys
            case .key: ItemSchema.derivedKeyKeys
            default: nil
            }
            if let derived {
                // Derived attributes follow the DER or key data; replacing those would change the item's identity.
                if !derived.isDisjoint(with: update.attributes.keys) { throw KeychainFailure(errSecReadOnlyAttr) }
                if update.valueData != nil { throw KeychainFailure(errSecUnimplemented) }
            }
            changes.append(try changed(item, by: update))
        }
        try await checkCollisions(changes)
        for change in changes {
            if let target = try await relocation(of: change.item, to: change.attributes) {
                try await move(change.item, to: target, attributes: change.attributes, label: change.label,
                               value: update.valueData)
                continue
            }
            if change.item.isAdopted || change.attributes != change.item.attributes {  // adoption adds markers
                try await client.setAttributes(of: change.item.path, to: change.attributes)
            }
            if change.label != change.item.properties.label {
                try await client.setLabel(of: change.item.path, to: change.label)
            }
            if let value = update.valueData {
                try await client.setSecret(of: change.item.path, to: try SecretBytes(copying: value),
                                           contentType: Self.contentType(of: value))
            }
        }
    }

    /// The item's complete new attribute map and label. The whole map is written, which works on providers that
    /// replace attributes (gnome-keyring, cofferd) and on those that merge them (KeePassXC).
    private func changed(_ item: StoredItem, by update: ItemQuery) throws(KeychainFailure) -> Change {
        var attributes = item.attributes
        var markers = item.markers
        var label = item.properties.label
        for (key, value) in update.attributes {
            guard let spec = item.schema.attributes[key] else { throw KeychainFailure(errSecNoSuchAttr) }
            let encoded = try AttributeCodec.encode(value, as: spec)
            switch spec.kind {
            case .label:
                label = encoded.text
            case .synchronizable:
                attributes[ItemSchema.syncAttribute] = encoded.text == "true" ? "true" : nil
            default:
                guard let name = spec.name else { continue }
                attributes[name] = encoded.text
                markers[key] = encoded.marker
                if name == "account", attributes[ItemSchema.mirrorAttribute] != nil || configuration.mirrorsUsername {
                    attributes[ItemSchema.mirrorAttribute] = encoded.text
                }
            }
        }
        attributes[ItemSchema.typesAttribute] = markers.isEmpty ? nil : AttributeCodec.formatTypes(markers)
        return Change(item: item, attributes: attributes, label: label)
    }

    /// Fails with `errSecDuplicateItem` when two changed items would share a primary key, or one would take the
    /// key of an item outside the set.
    private func checkCollisions(_ changes: [Change]) async throws {
        var seen: Set<[String]> = []
        let paths = Set(changes.map(\.item.path))
        for change in changes {
            let key = [change.item.schema.itemClass.rawValue]
                + StoredItem.primaryKey(of: change.attributes, schema: change.item.schema)
            guard seen.insert(key).inserted else { throw KeychainFailure(errSecDuplicateItem) }
            guard key.dropFirst().elementsEqual(change.item.primaryKey) == false else { continue }  // PK unchanged
            if try await hasPrimaryKeyCollision(change.attributes, schema: change.item.schema, excluding: paths) {
                throw KeychainFailure(errSecDuplicateItem)
            }
        }
    }
}

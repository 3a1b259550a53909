// SPDX-License-Identifier: Apache-2.0
// An item as the provider returned it, and how it reads back as Apple attributes.

import DBusWire
import Foundation
import SecretServiceClient

/// A provider item carrying this library's markers.
struct StoredItem: Sendable {
    let path: ObjectPath
    let properties: ItemProperties
    let schema: ItemSchema
    /// Whether this is another program's item seen through adoption (mapping §6.9): `properties` then holds the
    /// attributes it would have had if this library had written it, and the next write stores them.
    let isAdopted: Bool

    /// Wraps `properties` if they carry our class marker (and, when `expected` is given, that class).
    init?(path: ObjectPath, properties: ItemProperties, expected: ItemClass?) {
        let attributes = properties.attributes
        guard attributes[ItemSchema.versionAttribute] != nil,
              let raw = attributes[ItemSchema.classAttribute], let itemClass = ItemClass(rawValue: raw),
              expected == nil || expected == itemClass, let schema = ItemSchema.forClass(itemClass)
        else { return nil }
        self.path = path
        self.properties = properties
        self.schema = schema
        isAdopted = false
    }

    /// Wraps another program's item (no `keychain:v` marker; no `xdg:schema`, `schema`'s, or the generic one that
    /// gnome-keyring fills in for schema-less items) as an item of `schema` in `accessGroup`, not synchronizable,
    /// with the primary-key defaults and markers filled in. A generic password written with only `username`
    /// (python keyring) takes it as its account; with `mirrorsUsername` one with only `account` gets `username`.
    init?(adopting path: ObjectPath, properties: ItemProperties, schema: ItemSchema, accessGroup: String,
          mirrorsUsername: Bool) {
        var attributes = properties.attributes
        let acceptedSchemas = [schema.schemaName, ItemSchema.genericPassword.schemaName]
        guard attributes[ItemSchema.versionAttribute] == nil,
              attributes[ItemSchema.schemaAttribute].map(acceptedSchemas.contains) ?? true
        else { return nil }
        if schema.itemClass == .genericPassword {
            if attributes["account"] == nil { attributes["account"] = attributes[ItemSchema.mirrorAttribute] }
            if mirrorsUsername, attributes[ItemSchema.mirrorAttribute] == nil {
                attributes[ItemSchema.mirrorAttribute] = attributes["account"]
            }
        }
        for spec in schema.primaryKey where spec.kind != .synchronizable && spec.kind != .accessGroup {
            if let name = spec.name, attributes[name] == nil { attributes[name] = spec.primaryKeyDefault }
        }
        attributes[ItemSchema.schemaAttribute] = schema.schemaName
        attributes[ItemSchema.classAttribute] = schema.itemClass.rawValue
        attributes[ItemSchema.versionAttribute] = "1"
        attributes[ItemSchema.groupAttribute] = accessGroup
        attributes["keychain:pdmn"] = attributes["keychain:pdmn"] ?? "ak"
        attributes[ItemSchema.syncAttribute] = nil
        self.path = path
        self.properties = ItemProperties(label: properties.label, attributes: attributes, created: properties.created,
                                         modified: properties.modified, locked: properties.locked)
        self.schema = schema
        isAdopted = true
    }

    var attributes: [String: String] { properties.attributes }
    var markers: [String: Character] { AttributeCodec.parseTypes(attributes[ItemSchema.typesAttribute]) }
    var accessGroup: String { attributes[ItemSchema.groupAttribute] ?? "" }
    var isSynchronizable: Bool { attributes[ItemSchema.syncAttribute] == "true" }

    /// The persistent reference: `kcref1:` followed by the object path (paths are stable for an item's life).
    var persistentReference: Data { PersistentReference.data(for: path) }

    /// The item's attributes as `SecItemCopyMatching` returns them.
    var appleAttributes: [String: KeychainValue] {
        var result: [String: KeychainValue] = [
            "class": .string(schema.itemClass.rawValue),
            "labl": .string(properties.label),
            "cdat": .date(Date(timeIntervalSince1970: TimeInterval(properties.created))),
            "mdat": .date(Date(timeIntervalSince1970: TimeInterval(properties.modified))),
            "sync": .bool(isSynchronizable),
        ]
        let markers = markers
        for spec in schema.attributes.values {
            guard let name = spec.name, spec.kind != .synchronizable, let text = attributes[name] else { continue }
            if text.isEmpty, spec.kind == .protocolCode || spec.kind == .authenticationType { continue }  // unset
            result[spec.key] = AttributeCodec.decode(text, as: spec, marker: markers[spec.key])
        }
        return result
    }

    /// The primary-key values as stored, for collision checks (String and Data blobs compare by text, §6.11).
    var primaryKey: [String] { Self.primaryKey(of: attributes, schema: schema) }

    /// The primary-key values of an attribute map (a missing `keychain:sync` is false).
    static func primaryKey(of attributes: [String: String], schema: ItemSchema) -> [String] {
        schema.primaryKey.map { spec in
            let text = attributes[spec.name ?? ""]
            return spec.kind == .synchronizable ? (text == "true" ? "true" : "") : text ?? ""
        }
    }
}

/// The `kcref1:` persistent-reference format (mapping §6.6).
enum PersistentReference {
    static let prefix = "kcref1:"

    /// The reference to the item at `path`.
    static func data(for path: ObjectPath) -> Data { Data((prefix + path.rawValue).utf8) }

    /// The object path inside `data`, or `nil` when `data` is not one of our references.
    static func path(from data: Data) -> ObjectPath? {
        guard let text = String(data: data, encoding: .utf8), text.hasPrefix(prefix) else { return nil }
        return ObjectPath(String(text.dropFirst(prefix.count)))
    }
}

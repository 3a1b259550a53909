// SPDX-License-Identifier: Apache-2.0
// Snapshots of an item's and a collection's properties, and a decoded secret.

public import DBusWire
public import SecretCrypto

/// An item's properties as one `GetAll` returned them.
public struct ItemProperties: Sendable, Hashable {
    /// The human-readable name.
    public var label: String
    /// The lookup attributes (never secret, but may be personal: do not log the values).
    public var attributes: [String: String]
    /// When the item was created, in Unix seconds.
    public var created: UInt64
    /// When the item was last changed, in Unix seconds.
    public var modified: UInt64
    /// Whether the item's secret can be read now.
    public var locked: Bool

    public init(label: String, attributes: [String: String], created: UInt64, modified: UInt64, locked: Bool) {
        self.label = label
        self.attributes = attributes
        self.created = created
        self.modified = modified
        self.locked = locked
    }
}

/// A collection's properties as one `GetAll` returned them.
public struct CollectionProperties: Sendable, Hashable {
    /// The human-readable name.
    public var label: String
    /// The items' paths.
    public var items: [ObjectPath]
    /// Whether the collection is locked.
    public var locked: Bool
    /// When the collection was created, in Unix seconds.
    public var created: UInt64
    /// When the collection was last changed, in Unix seconds.
    public var modified: UInt64

    public init(label: String, items: [ObjectPath], locked: Bool, created: UInt64, modified: UInt64) {
        self.label = label
        self.items = items
        self.locked = locked
        self.created = created
        self.modified = modified
    }
}

/// A secret read from the provider, decoded from the session.
public struct ItemSecret: Sendable {
    /// The plaintext, in secure memory (prints as `<redacted>`).
    public var value: SecretBytes
    /// The content type the secret was stored with, for example `text/plain`.
    public var contentType: String

    public init(value: SecretBytes, contentType: String) {
        self.value = value
        self.contentType = contentType
    }
}

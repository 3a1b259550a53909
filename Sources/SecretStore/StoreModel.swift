// SPDX-License-Identifier: Apache-2.0
// The values the store hands out: snapshots of collections and items, secrets, and change events.

public import SecretCrypto

/// A collection as the outside sees it at one moment.
public struct CollectionInfo: Sendable, Hashable {
    public var id: String
    public var label: String
    public var created: UInt64
    public var modified: UInt64
    public var isLocked: Bool
    /// Whether the collection lives only in memory (the `session` collection).
    public var isInMemory: Bool
}

/// An item as the outside sees it at one moment (never its secret).
public struct ItemInfo: Sendable, Hashable {
    public var collection: String
    public var id: String
    public var label: String
    public var attributes: [String: String]
    public var contentType: String
    public var created: UInt64
    public var modified: UInt64
    public var isLocked: Bool
}

/// An item's address, with what search ordering and the locked/unlocked split need.
public struct ItemRef: Sendable, Hashable {
    public var collection: String
    public var item: String
    public var isLocked: Bool

    public init(collection: String, item: String, isLocked: Bool) {
        self.collection = collection
        self.item = item
        self.isLocked = isLocked
    }
}

/// A secret value with its content type. The value lives in libgcrypt secure memory.
public struct StoredSecret: Sendable {
    public var value: SecretBytes
    public var contentType: String

    public init(value: SecretBytes, contentType: String) {
        self.value = value
        self.contentType = contentType
    }
}

/// Properties of a collection whose change is announced.
public enum CollectionProperty: String, Sendable, Hashable, CaseIterable {
    case items = "Items", label = "Label", locked = "Locked", modified = "Modified"
}

/// Properties of an item whose change is announced.
public enum ItemProperty: String, Sendable, Hashable, CaseIterable {
    case label = "Label", attributes = "Attributes", locked = "Locked", modified = "Modified"
}

/// A change to the store, in the order it happened. The daemon turns these into D-Bus signals.
public enum StoreEvent: Sendable, Hashable {
    case collectionCreated(String)
    case collectionDeleted(String)
    case collectionChanged(String, Set<CollectionProperty>)
    case itemCreated(collection: String, item: String)
    case itemDeleted(collection: String, item: String)
    case itemChanged(collection: String, item: String, Set<ItemProperty>)
    /// The set of collections changed (create, delete) — the service's `Collections` property.
    case collectionsListChanged
}

/// Who may use an item without asking: its creator and the applications the user always allowed
/// (application identities as the daemon writes them; `creator` is `nil` for items that have none, made before
/// creators were recorded, or imported).
public struct ItemOwnership: Sendable, Hashable {
    public var creator: String?
    public var allowed: [String]
    /// The item's `Keychain` access group (its ``SecretAttributeNames/keychainAccessGroup`` attribute), if any.
    public var accessGroup: String?

    public init(creator: String?, allowed: [String], accessGroup: String? = nil) {
        self.creator = creator
        self.allowed = allowed
        self.accessGroup = accessGroup
    }
}

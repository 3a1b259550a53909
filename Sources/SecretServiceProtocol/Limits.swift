// SPDX-License-Identifier: Apache-2.0
// The size limits the provider enforces, so hostile or buggy clients get an error instead of exhausting memory.

/// Limits on what one item, one collection and the whole store may hold (documented in docs/DAEMON.md, "Limits").
/// Exceeding one yields `LimitsExceeded`.
public struct ItemLimits: Sendable, Hashable {
    /// Largest secret value, in bytes (plaintext).
    public var maximumSecretBytes: Int
    /// Most attributes on one item.
    public var maximumAttributeCount: Int
    /// Longest attribute name, in UTF-8 bytes.
    public var maximumAttributeNameBytes: Int
    /// Longest attribute value, in UTF-8 bytes.
    public var maximumAttributeValueBytes: Int
    /// Longest label (items and collections), in UTF-8 bytes.
    public var maximumLabelBytes: Int
    /// Longest content type, in UTF-8 bytes.
    public var maximumContentTypeBytes: Int
    /// Most items in one collection.
    public var maximumItemsPerCollection: Int
    /// Most collections in the store.
    public var maximumCollections: Int
    /// Most secret bytes the store holds in all collections together (as stored, sealed). One client writing large
    /// secrets in a loop meets this before the daemon runs out of memory.
    public var maximumTotalSecretBytes: Int

    public init(maximumSecretBytes: Int, maximumAttributeCount: Int, maximumAttributeNameBytes: Int,
                maximumAttributeValueBytes: Int, maximumLabelBytes: Int, maximumContentTypeBytes: Int,
                maximumItemsPerCollection: Int = 100_000, maximumCollections: Int = 1024,
                maximumTotalSecretBytes: Int = 256 << 20) {
        self.maximumItemsPerCollection = maximumItemsPerCollection
        self.maximumCollections = maximumCollections
        self.maximumTotalSecretBytes = maximumTotalSecretBytes
        self.maximumSecretBytes = maximumSecretBytes
        self.maximumAttributeCount = maximumAttributeCount
        self.maximumAttributeNameBytes = maximumAttributeNameBytes
        self.maximumAttributeValueBytes = maximumAttributeValueBytes
        self.maximumLabelBytes = maximumLabelBytes
        self.maximumContentTypeBytes = maximumContentTypeBytes
    }

    /// The defaults: 4 MiB secrets, 64 attributes of 255-byte names and 16 KiB values, 4 KiB labels, 100,000 items
    /// per collection, 1,024 collections, 256 MiB of secrets in all.
    public static let `default` = ItemLimits(
        maximumSecretBytes: 4 << 20, maximumAttributeCount: 64, maximumAttributeNameBytes: 255,
        maximumAttributeValueBytes: 16 << 10, maximumLabelBytes: 4 << 10, maximumContentTypeBytes: 255)

    /// Checks a label against the limit.
    /// - Throws: ``SecretServiceError/limitsExceeded(_:)``.
    public func check(label: String) throws(SecretServiceError) {
        guard label.utf8.count <= maximumLabelBytes else {
            throw .limitsExceeded("label longer than \(maximumLabelBytes) bytes")
        }
    }

    /// Checks an attribute set against the limits.
    /// - Throws: ``SecretServiceError/limitsExceeded(_:)`` or ``SecretServiceError/invalidArgs(_:)``.
    public func check(attributes: [String: String]) throws(SecretServiceError) {
        guard attributes.count <= maximumAttributeCount else {
            throw .limitsExceeded("more than \(maximumAttributeCount) attributes")
        }
        for (name, value) in attributes {
            guard !name.isEmpty else { throw .invalidArgs("attribute names must not be empty") }
            guard name.utf8.count <= maximumAttributeNameBytes else {
                throw .limitsExceeded("attribute name longer than \(maximumAttributeNameBytes) bytes")
            }
            guard value.utf8.count <= maximumAttributeValueBytes else {
                throw .limitsExceeded("attribute value longer than \(maximumAttributeValueBytes) bytes")
            }
        }
    }

    /// Checks a secret's size and content type.
    /// - Throws: ``SecretServiceError/limitsExceeded(_:)``.
    public func check(secretByteCount: Int, contentType: String) throws(SecretServiceError) {
        guard secretByteCount <= maximumSecretBytes else {
            throw .limitsExceeded("secret larger than \(maximumSecretBytes) bytes")
        }
        guard contentType.utf8.count <= maximumContentTypeBytes else {
            throw .limitsExceeded("content type longer than \(maximumContentTypeBytes) bytes")
        }
    }

    /// Checks that a collection holding `itemCount` items may take one more.
    /// - Throws: ``SecretServiceError/limitsExceeded(_:)``.
    public func check(newItemIn itemCount: Int) throws(SecretServiceError) {
        guard itemCount < maximumItemsPerCollection else {
            throw .limitsExceeded("the collection already holds \(maximumItemsPerCollection) items")
        }
    }

    /// Checks that a store holding `collectionCount` collections may take one more.
    /// - Throws: ``SecretServiceError/limitsExceeded(_:)``.
    public func check(newCollectionAmong collectionCount: Int) throws(SecretServiceError) {
        guard collectionCount < maximumCollections else {
            throw .limitsExceeded("the store already holds \(maximumCollections) collections")
        }
    }

    /// Checks that the store's secrets stay within the total once `added` bytes replace `removed` ones.
    /// - Throws: ``SecretServiceError/limitsExceeded(_:)``.
    public func check(totalSecretBytes current: Int, adding added: Int, removing removed: Int = 0)
        throws(SecretServiceError) {
        guard current - removed + added <= maximumTotalSecretBytes else {
            throw .limitsExceeded("the store's secrets would exceed \(maximumTotalSecretBytes) bytes in all")
        }
    }
}

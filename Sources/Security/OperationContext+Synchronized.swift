// SPDX-License-Identifier: Apache-2.0
// Where an item added with kSecAttrSynchronizable = true goes: a collection the provider synchronizes between the
// user's machines (docs/KEYCHAIN-API.md, docs/SYNC.md).

import DBusWire
import Foundation
import SecretCrypto
import SecretServiceClient
import SecretServiceProtocol
import CofferKeychainConfiguration

extension OperationContext {
    /// The synchronized collection a synchronizable item goes to instead of the default one, or `nil` for the
    /// default collection: when it is synchronized itself, when the provider synchronizes nothing (gnome-keyring,
    /// KeePassXC: the item keeps its attribute, as it always did), or when no synchronized collection is chosen.
    ///
    /// Chosen is the collection the configuration names, if the provider synchronizes it, else the only
    /// synchronized collection when there is exactly one (a machine that joined one, beside its own login
    /// collection). A configured name that is not synchronized falls back to the default collection rather than
    /// failing the add: the item is stored, and the attribute still marks it for searches.
    func synchronizedCollection() async throws -> ObjectPath? {
        try await synchronizedCollection(among: try await client.synchronizedCollections())
    }

    /// ``synchronizedCollection()`` from the provider's list of synchronized collections.
    private func synchronizedCollection(among synchronized: [ObjectPath]) async throws -> ObjectPath? {
        guard !synchronized.isEmpty else { return nil }
        // ReadAlias gives the collection's own path, which is what the list holds (not the alias path).
        if let current = try await client.readAlias(SecretServiceNames.defaultAlias), synchronized.contains(current) {
            return nil
        }
        guard let named = configuration.resolvedSynchronizedCollection else {
            return synchronized.count == 1 ? synchronized[0] : nil
        }
        if let byID = synchronized.first(where: { Self.lastComponent($0) == named }) {
            return byID
        }
        for path in synchronized where try await client.collectionProperties(path).label == named {
            return path
        }
        return nil
    }

    /// Where an update that sets or clears `kSecAttrSynchronizable` moves `item`: the collection an add with
    /// `attributes` would go to, when that is not the item's own; `nil` when it stays. Only a provider that
    /// synchronizes some collection moves anything, so with others an update changes the attribute alone.
    func relocation(of item: StoredItem, to attributes: [String: String]) async throws -> ObjectPath? {
        let synchronizable = attributes[ItemSchema.syncAttribute] == "true"
        guard synchronizable != item.isSynchronizable else { return nil }
        let synchronized = try await client.synchronizedCollections()
        guard !synchronized.isEmpty else { return nil }
        var target = synchronizable ? try await synchronizedCollection(among: synchronized) : nil
        if target == nil { target = try await client.readAlias(SecretServiceNames.defaultAlias) }
        guard let target else { return nil }
        let raw = item.path.rawValue
        return raw[..<(raw.lastIndex(of: "/") ?? raw.endIndex)] == target.rawValue ? nil : target
    }

    /// Moves `item` to `target` with its new `attributes`, `label` and secret (`value`, else its current one):
    /// the copy is made before the original is deleted, so a failure between the two leaves both, never neither.
    func move(_ item: StoredItem, to target: ObjectPath, attributes: [String: String], label: String,
              value: Data?) async throws {
        let secret: ItemSecret
        if let value {
            secret = ItemSecret(value: try SecretBytes(copying: value), contentType: Self.contentType(of: value))
        } else {
            secret = try await client.secret(of: item.path)
        }
        if try await client.collectionProperties(target).locked {
            guard try await unlocked([target]).contains(target) else {
                throw KeychainFailure(errSecInteractionNotAllowed)
            }
        }
        _ = try await client.createItem(in: target, label: label, attributes: attributes, secret: secret.value,
                                        contentType: secret.contentType, replace: false)
        try await client.deleteItem(item.path)
    }

    private static func lastComponent(_ path: ObjectPath) -> String {
        path.rawValue.split(separator: "/").last.map(String.init) ?? ""
    }
}

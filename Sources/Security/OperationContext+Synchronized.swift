// SPDX-License-Identifier: Apache-2.0
// Where an item added with kSecAttrSynchronizable = true goes: a collection the provider synchronizes between the
// user's machines (docs/KEYCHAIN-API.md, docs/SYNC.md).

import DBusWire
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
        let synchronized = try await client.synchronizedCollections()
        guard !synchronized.isEmpty else { return nil }
        // ReadAlias gives the collection's own path, which is what the list holds (not the alias path).
        if let current = try await client.readAlias(SecretServiceNames.defaultAlias), synchronized.contains(current) {
            return nil
        }
        guard let named = configuration.resolvedSynchronizedCollection else {
            return synchronized.count == 1 ? synchronized[0] : nil
        }
        if let byID = synchronized.first(where: { $0.rawValue.split(separator: "/").last.map(String.init) == named }) {
            return byID
        }
        for path in synchronized where try await client.collectionProperties(path).label == named {
            return path
        }
        return nil
    }
}

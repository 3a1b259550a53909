// SPDX-License-Identifier: Apache-2.0
// Item lookups of the store: secrets, one or many, and searches by attributes.

public import SecretServiceProtocol
import SecretCrypto

extension SecretStore {
    /// The secret of an item, decrypted into secure memory.
    /// - Throws: `noSuchObject`, `isLocked`, `failed`.
    public func secret(collection: String, item: String) throws(SecretServiceError) -> StoredSecret {
        let state = try unlockedState(of: collection)
        guard let stored = state.items[item], let vault = state.vault else { throw .noSuchObject("no such item") }
        markUsed(collection)
        do {
            let contentType = try state.contentType(of: stored, vault: vault)
            return StoredSecret(value: try vault.openSecret(stored.sealed.secret(in: state.image), item: item),
                                contentType: contentType)
        } catch {
            throw .failed("the stored secret could not be decrypted: \(error)")
        }
    }

    /// ``secret(collection:item:)`` of many items in one step of the store (`GetSecrets`): `nil` for an item that is
    /// gone or whose collection is locked, which `GetSecrets` leaves out.
    /// - Throws: the first other failure.
    public func secrets(_ addresses: [(collection: String, item: String)]) throws(SecretServiceError) -> [StoredSecret?] {
        var secrets: [StoredSecret?] = []
        secrets.reserveCapacity(addresses.count)
        for address in addresses {
            do {
                secrets.append(try secret(collection: address.collection, item: address.item))
            } catch .isLocked, .noSuchObject {
                secrets.append(nil)
            }
        }
        return secrets
    }

    // MARK: - Searching

    /// Items of every collection whose attributes contain all of `query`, newest `Modified` first.
    public func search(_ query: [String: String]) -> [ItemRef] {
        var found: [(StoredItem, ItemRef)] = []
        for state in collections.values {
            for item in state.matches(query) {
                found.append((item, ItemRef(collection: state.id, item: item.id, isLocked: state.isLocked)))
            }
        }
        found.sort { CollectionState.newestFirst($0.0, $1.0) }
        return found.map(\.1)
    }

    /// Items of one collection whose attributes contain all of `query`, newest `Modified` first.
    /// - Throws: ``SecretServiceError/noSuchObject(_:)``.
    public func search(in collection: String, _ query: [String: String]) throws(SecretServiceError) -> [String] {
        try state(of: collection).matches(query).map(\.id)
    }
}

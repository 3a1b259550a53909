// SPDX-License-Identifier: Apache-2.0
// Item lookups of the store: secrets, one or many, and searches by attributes.

public import SecretServiceProtocol
import SecretCrypto

extension SecretStore {
    /// The secret of an item, decrypted into secure memory.
    /// - Throws: `noSuchObject`, `isLocked`, `failed`.
    public func secret(collection: String, item: String) throws(SecretServiceError) -> StoredSecret {
        guard let secret = try secret(of: item, in: try unlockedState(of: collection)) else {
            throw .noSuchObject("no such item")
        }
        markUsed(collection)
        return secret
    }

    /// ``secret(collection:item:)`` of many items in one step of the store (`GetSecrets`), each handed to `encode`
    /// (with its position in `addresses`) as soon as it is decrypted and released right after, so secure memory holds
    /// one of them at a time however many are read.
    /// - Returns: per address, what `encode` made of its secret, or `nil` for an item that is gone or whose
    ///   collection is locked, which `GetSecrets` leaves out.
    /// - Throws: the first other failure, `encode`'s included.
    public func secrets<Encoded: Sendable>(
        _ addresses: [(collection: String, item: String)],
        encodingEach encode: @Sendable (_ index: Int, _ secret: StoredSecret) throws(SecretServiceError) -> Encoded
    ) throws(SecretServiceError) -> [Encoded?] {
        var encoded: [Encoded?] = []
        encoded.reserveCapacity(addresses.count)
        // The items of one search are mostly of one collection: it is looked up, and its use noted, once per run.
        var current: (id: String, state: CollectionState?, used: Bool)?
        for (index, address) in addresses.enumerated() {
            if current?.id != address.collection {
                current = (address.collection, collections[address.collection].flatMap { $0.isLocked ? nil : $0 }, false)
            }
            guard let state = current?.state, let secret = try secret(of: address.item, in: state) else {
                encoded.append(nil)
                continue
            }
            if current?.used == false {
                markUsed(address.collection)
                current?.used = true
            }
            encoded.append(try encode(index, secret))
        }
        return encoded
    }

    /// The secret of `item` of the unlocked `state`; `nil` when there is no such item.
    /// - Throws: `failed` when it cannot be decrypted.
    private func secret(of item: String, in state: CollectionState) throws(SecretServiceError) -> StoredSecret? {
        guard let stored = state.items[item], let vault = state.vault else { return nil }
        do {
            let contentType = try state.contentType(of: stored, vault: vault)
            return StoredSecret(value: try vault.openSecret(stored.sealed.secret(in: state.image), item: item),
                                contentType: contentType)
        } catch {
            throw .failed("the stored secret could not be decrypted: \(error)")
        }
    }

    // MARK: - Searching

    /// Items of every collection whose attributes contain all of `query`, newest `Modified` first.
    public func search(_ query: [String: String]) -> [ItemRef] {
        var found: [(StoredItem, ItemRef)] = []
        var collectionsFound = 0
        for state in collections.values {
            let matches = state.matches(query)
            collectionsFound += matches.isEmpty ? 0 : 1
            for item in matches {
                found.append((item, ItemRef(collection: state.id, item: item.id, isLocked: state.isLocked)))
            }
        }
        // Each collection's matches come sorted already: only several collections' need merging.
        if collectionsFound > 1 { found.sort { CollectionState.newestFirst($0.0, $1.0) } }
        return found.map(\.1)
    }

    /// Items of one collection whose attributes contain all of `query`, newest `Modified` first.
    /// - Throws: ``SecretServiceError/noSuchObject(_:)``.
    public func search(in collection: String, _ query: [String: String]) throws(SecretServiceError) -> [String] {
        try state(of: collection).matches(query).map(\.id)
    }
}

// SPDX-License-Identifier: Apache-2.0
// The result shapes of SecItemCopyMatching and SecItemAdd, built as Foundation objects on the caller's thread.

import DBusWire
import Foundation
import SecretServiceClient

/// What one matched item contributes to a result.
struct ResultEntry: Sendable {
    var data: Data?
    var attributes: [String: KeychainValue]?
    var persistentReference: Data?
    /// The `SecCertificate` or `SecKey` result of `kSecReturnRef`.
    var reference: ItemReference?
}

/// A result before it becomes Foundation objects (which are not Sendable, so they are made on the caller's side).
struct ItemResult: Sendable {
    var entries: [ResultEntry]
    /// Whether the caller asked for one result (bare value) or several (array, even of one).
    var isList: Bool
    var returnData: Bool
    var returnAttributes: Bool
    var returnPersistentRef: Bool
    var returnReference: Bool

    init(_ entries: [ResultEntry], for query: ItemQuery, isList: Bool) {
        self.entries = entries
        self.isList = isList
        returnData = query.returnData
        returnAttributes = query.returnAttributes
        returnPersistentRef = query.returnPersistentRef
        returnReference = query.returnsReference
    }

    /// Apple's shape: exactly one return key → the bare value; several → a dictionary of the attributes plus
    /// `v_Data`/`v_PersistentRef`; a limit other than one → an array of those.
    var object: CFTypeRef? {
        let requested = [returnData, returnAttributes, returnPersistentRef, returnReference].filter { $0 }.count
        let objects = entries.map { entryObject($0, requested: requested) }
        // Built from objects, not bridged from `[Any]`: bridging asks each element's class (and its superclasses)
        // whether it is a bridgeable Swift value, which cost more than making the element.
        if isList { return NSArray(array: objects) }
        return objects.first
    }

    private func entryObject(_ entry: ResultEntry, requested: Int) -> AnyObject {
        let reference = entry.reference?.object
        if requested == 1 {
            if returnReference, let reference { return reference }
            if returnData { return ContiguousData(entry.data ?? Data()) }
            if returnPersistentRef { return ContiguousData(entry.persistentReference ?? Data()) }
        }
        var dictionary: [String: Any] = [:]
        if returnAttributes {
            for (key, value) in entry.attributes ?? [:] { dictionary[key] = value.foundationObject }
            if requested == 1 { return dictionary as NSDictionary }
        }
        if returnData { dictionary["v_Data"] = ContiguousData(entry.data ?? Data()) }
        if returnPersistentRef { dictionary["v_PersistentRef"] = ContiguousData(entry.persistentReference ?? Data()) }
        if returnReference, let reference { dictionary["v_Ref"] = reference }
        return dictionary as NSDictionary
    }
}

extension OperationContext {
    /// Builds the result entries for `items`, fetching all secrets in one `GetSecrets` when data is wanted (or taking
    /// them from `prefetched` when it stands for that fetch).
    func resultEntries(for items: [StoredItem], query: ItemQuery, prefetched: PrefetchedSecrets? = nil)
        async throws -> [ResultEntry] {
        var secrets: [ObjectPath: Data] = [:]
        if query.returnData || query.returnsReference {
            if let fetched = try prefetched?.secrets(for: items) {
                secrets = fetched
            } else {
                secrets = try await secretData(of: items.map(\.path))
            }
            guard items.allSatisfy({ secrets[$0.path] != nil }) else {
                throw KeychainFailure(interaction == .allow ? errSecAuthFailed : errSecInteractionNotAllowed)
            }
        }
        return items.map { item in
            ResultEntry(data: query.returnData ? secrets[item.path] : nil,
                        attributes: query.returnAttributes ? item.appleAttributes : nil,
                        persistentReference: query.returnPersistentRef ? item.persistentReference : nil,
                        reference: query.returnsReference ? secrets[item.path].flatMap {
                            ItemReference(itemClass: item.schema.itemClass, data: $0, attributes: item.appleAttributes)
                        } : nil)
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Secrets asked for in the same breath as the candidates' properties, so a search that returns data waits one round
// trip less; used only where they are exactly the secrets the result needs.

import DBusWire
import Foundation
import SecretCrypto
import SecretServiceClient

/// One `GetSecrets` for every candidate of a search, sent before their properties came back.
struct PrefetchedSecrets: Sendable {
    /// The items whose secrets were asked for.
    let paths: Set<ObjectPath>
    /// The provider's answer as the bytes the result hands out, or the error that one `GetSecrets` for all of `paths`
    /// met.
    let outcome: Result<[ObjectPath: Data], any Error>

    /// The secrets of `items` from this fetch; `nil` when it cannot stand for a fetch of exactly `items` (an item
    /// outside it, or a failure that may have come from a candidate the search then left out).
    /// - Throws: the fetch's error when `items` are every candidate, as a fetch of them alone would have thrown.
    func secrets(for items: [StoredItem]) throws -> [ObjectPath: Data]? {
        let wanted = Set(items.map(\.path))
        guard wanted.isSubset(of: paths) else { return nil }
        switch outcome {
        case .success(let secrets): return secrets
        case .failure(let error): if wanted == paths { throw error } else { return nil }
        }
    }
}

extension OperationContext {
    /// Asks for the secrets of `paths`, keeping the error as the outcome instead of throwing it.
    func prefetchSecrets(of paths: [ObjectPath]) async -> PrefetchedSecrets {
        let outcome: Result<[ObjectPath: Data], any Error>
        do {
            outcome = .success(try await secretData(of: paths))
        } catch {
            outcome = .failure(error)
        }
        return PrefetchedSecrets(paths: Set(paths), outcome: outcome)
    }

    /// `GetSecrets` for `paths`, each secret copied into the `Data` a result hands out as soon as it is decrypted and
    /// its secure memory released right after: a search of many large items never holds them all in the pool.
    func secretData(of paths: [ObjectPath]) async throws -> [ObjectPath: Data] {
        try await client.secrets(of: paths) { $0.value.withUnsafeBytes { Data($0) } }
    }

    /// Whether the exact search of `query` already holds every condition that could rule out one of its candidates
    /// for another reason than being synchronizable: then fetching the candidates' secrets before their re-check
    /// fetches none of another access group, nor of an item the query's label, dates or case-insensitive text
    /// would leave out.
    func searchRulesOutAlone(_ query: ItemQuery, schema: ItemSchema) -> Bool {
        if query.caseInsensitive { return false }
        if query.attributes["agrp"] == nil, searchedGroups.count != 1 { return false }
        return query.attributes.keys.allSatisfy { key in
            guard let spec = schema.attributes[key] else { return false }
            switch spec.kind {
            case .label, .date: return false
            case .synchronizable, .accessControl: return true
            default: return spec.name != nil
            }
        }
    }
}

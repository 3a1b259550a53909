// SPDX-License-Identifier: Apache-2.0
// Identity searches and deletes, answered from the join of private keys and certificates (mapping §6.4).

import Foundation

extension OperationContext {
    /// Identities are not stored items: one exists wherever a private key's application label equals a
    /// certificate's public-key hash. Without such a pair an identity search or delete finds nothing, which iOS
    /// reports as `errSecItemNotFound` (apps' "wipe every class" loops rely on it); with a pair, returning or
    /// deleting the identity needs `SecIdentity`, which this library does not provide, so it is
    /// `errSecUnimplemented` rather than a silent success.
    func answerIdentityQuery(_ query: ItemQuery) async throws -> Never {
        let labels = try await attributes(of: .key, scopedLike: query)
            .filter { $0["kcls"] == .integer(1) }
            .compactMap { $0["klbl"] }
        let hashes = try await attributes(of: .certificate, scopedLike: query).compactMap { $0["pkhh"] }
        if labels.contains(where: hashes.contains) { throw KeychainFailure(errSecUnimplemented) }
        throw KeychainFailure(errSecItemNotFound)
    }

    /// The Apple attributes of every item of `itemClass` in the access groups and synchronizable scope of `query`.
    /// Other attributes only narrow an identity query, so they cannot turn "no pair" into a match.
    private func attributes(of itemClass: ItemClass, scopedLike query: ItemQuery) async throws
        -> [[String: KeychainValue]] {
        var entries: [String: KeychainValue] = ["class": .string(itemClass.rawValue), "m_Limit": .string("m_LimitAll")]
        for key in ["agrp", "sync"] { entries[key] = query.attributes[key] }
        var scoped = try ItemQuery(entries, role: .search)
        scoped.authenticationUI = query.authenticationUI
        return try await findItems(scoped).map(\.appleAttributes)
    }
}

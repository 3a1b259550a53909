// SPDX-License-Identifier: Apache-2.0
// A collection as list-keychains, default-keychain and status show it.

import DBusWire
import SecretServiceClient
import SecretServiceProtocol

/// What the listing verbs print about one collection.
struct CollectionSummary: Encodable {
    var path: String
    var id: String
    var label: String
    var locked: Bool
    var items: Int
    var aliases: [String]
    var created: String
    var modified: String
}

extension SecretService {
    /// Every collection with its properties and the well-known aliases pointing at it.
    func collectionSummaries() async throws -> [CollectionSummary] {
        var aliases: [ObjectPath: [String]] = [:]
        for alias in [SecretServiceNames.defaultAlias, "login", SecretServiceNames.sessionCollection] {
            if let path = try? await readAlias(alias) { aliases[path, default: []].append(alias) }
        }
        var summaries: [CollectionSummary] = []
        for path in try await collections() {
            let properties = try await collectionProperties(path)
            summaries.append(CollectionSummary(
                path: path.rawValue, id: CollectionReference(path: path).id, label: properties.label,
                locked: properties.locked, items: properties.items.count, aliases: aliases[path] ?? [],
                created: JSONOutput.date(properties.created), modified: JSONOutput.date(properties.modified)))
        }
        return summaries
    }
}

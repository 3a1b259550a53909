// SPDX-License-Identifier: Apache-2.0
// Puts parsed keyring items into a provider's collection without creating duplicates, and counts what happened.

import DBusWire
import KeyringFiles
import SecretCrypto
import SecretServiceClient
import SecretServiceProtocol

/// What an import or restore did.
struct ImportReport: Encodable, Sendable {
    struct Skipped: Encodable, Sendable {
        var label: String
        var reason: String
    }

    var file: String
    var format: String
    var collection: String
    var imported = 0
    var alreadyPresent = 0
    var skipped: [Skipped] = []

    enum CodingKeys: String, CodingKey {
        case file, format, collection, imported, alreadyPresent, skipped, skippedItems
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(file, forKey: .file)
        try container.encode(format, forKey: .format)
        try container.encode(collection, forKey: .collection)
        try container.encode(imported, forKey: .imported)
        try container.encode(alreadyPresent, forKey: .alreadyPresent)
        try container.encode(skipped.count, forKey: .skipped)
        try container.encode(skipped, forKey: .skippedItems)
    }

    /// The one line a person reads.
    var summary: String {
        "imported \(imported) item\(imported == 1 ? "" : "s") into \(collection) "
            + "(\(alreadyPresent) already present, \(skipped.count) skipped)"
    }
}

/// Imports items idempotently.
///
/// An item counts as already present when the collection holds an item with exactly the same attributes, label and
/// secret; then nothing is written. Otherwise the item is created as a new item (`replace: false`), so an
/// existing item that shares the attributes but differs in label or secret is never overwritten: import adds, it
/// never destroys. Running the same import twice therefore creates nothing the second time. Creation and
/// modification times cannot be set through the Secret Service API; the provider stamps the time of the import.
struct KeyringImporter {
    let client: SecretService
    let collection: ObjectPath

    /// An existing item, for matching.
    private struct Existing {
        var label: String
        var secret: SecretBytes
    }

    /// Imports `items`, calling `progress` after each one.
    func run(_ items: [ImportedItem], into report: inout ImportReport, progress: (Int) -> Void) async throws {
        var existing = try await existingItems()
        for (index, item) in items.enumerated() {
            defer { progress(index + 1) }
            guard let secret = item.secret else {
                report.skipped.append(.init(label: item.label, reason: "the file stores no secret for it"))
                continue
            }
            let matches = existing[item.attributes] ?? []
            if matches.contains(where: { $0.label == item.label && $0.secret.constantTimeEquals(secret) }) {
                report.alreadyPresent += 1
                continue
            }
            do {
                _ = try await client.createItem(in: collection, label: item.label, attributes: item.attributes,
                                                secret: secret, contentType: item.contentType ?? "text/plain",
                                                replace: false)
            } catch let error as SecretServiceError {
                report.skipped.append(.init(label: item.label, reason: "the provider refused it: \(error)"))
                continue
            }
            existing[item.attributes, default: []].append(Existing(label: item.label, secret: secret))
            report.imported += 1
        }
    }

    /// Every item of the collection, grouped by its attribute set: one properties call per item and one
    /// `GetSecrets` for all.
    private func existingItems() async throws -> [[String: String]: [Existing]] {
        let paths = try await client.collectionProperties(collection).items
        guard !paths.isEmpty else { return [:] }
        let secrets = try await client.secrets(of: paths)
        var result: [[String: String]: [Existing]] = [:]
        for path in paths {
            guard let secret = secrets[path] else { continue }
            let properties = try await client.itemProperties(path)
            result[properties.attributes, default: []].append(Existing(label: properties.label, secret: secret.value))
        }
        return result
    }
}

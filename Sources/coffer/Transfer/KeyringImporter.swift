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

    /// Imports `items`, calling `progress` after each one. Imported items are stored for no application in
    /// particular: they belong to the programs that stored them in the other keyring, which become their owners on
    /// first use (docs/ACCESS-CONTROL.md), not to this tool.
    func run(_ items: [ImportedItem], into report: inout ImportReport, progress: (Int) -> Void) async throws {
        let existing = try await existingItems()
        // Items of this import are compared in memory: reading them back would adopt them.
        var importedNow: [ItemKey: [SecretBytes]] = [:]
        for (index, item) in items.enumerated() {
            defer { progress(index + 1) }
            guard let secret = item.secret else {
                report.skipped.append(.init(label: item.label, reason: "the file stores no secret for it"))
                continue
            }
            let key = ItemKey(label: item.label, attributes: item.attributes)
            var present = importedNow[key, default: []].contains { $0.constantTimeEquals(secret) }
            if !present { present = try await isPresent(secret, among: existing[key] ?? []) }
            if present {
                report.alreadyPresent += 1
                continue
            }
            do {
                _ = try await client.createItem(in: collection, label: item.label, attributes: item.attributes,
                                                secret: secret, contentType: item.contentType ?? "text/plain",
                                                replace: false, unowned: true)
                importedNow[key, default: []].append(secret)
            } catch let error as SecretServiceError {
                report.skipped.append(.init(label: item.label, reason: "the provider refused it: \(error)"))
                continue
            }
            report.imported += 1
        }
    }

    /// What an existing item is matched by before its secret is compared.
    private struct ItemKey: Hashable {
        var label: String
        var attributes: [String: String]
    }

    /// Whether one of `candidates` (items with the same label and attributes) holds `secret`. Only those items'
    /// secrets are read: reading a secret is a use, which would make this tool the owner of an item nobody owned.
    private func isPresent(_ secret: SecretBytes, among candidates: [ObjectPath]) async throws -> Bool {
        guard !candidates.isEmpty else { return false }
        let secrets = try await client.secrets(of: candidates)
        return secrets.values.contains { $0.value.constantTimeEquals(secret) }
    }

    /// Every item of the collection by label and attributes: one properties call per item, no secret.
    private func existingItems() async throws -> [ItemKey: [ObjectPath]] {
        var result: [ItemKey: [ObjectPath]] = [:]
        for path in try await client.collectionProperties(collection).items {
            let properties = try await client.itemProperties(path)
            result[ItemKey(label: properties.label, attributes: properties.attributes), default: []].append(path)
        }
        return result
    }
}

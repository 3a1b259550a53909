// SPDX-License-Identifier: Apache-2.0
// secret-tool's `attribute value ...` arguments, and reading items (properties and secrets) for its verbs.

import ArgumentParser
import DBusWire
import Foundation
import SecretCrypto
import SecretServiceClient

/// The trailing `attribute value ...` pairs every secret-tool verb takes.
struct AttributePairs: ParsableArguments {
    @Argument(help: ArgumentHelp("Attribute names and values, in pairs.", valueName: "attribute value"))
    var pairs: [String] = []

    /// The pairs as a dictionary.
    /// - Throws: ``CofferError`` (bad arguments) for an odd count or none at all, as secret-tool refuses them.
    func attributes() throws -> [String: String] {
        guard !pairs.isEmpty, pairs.count % 2 == 0 else {
            throw CofferError.badArguments("must specify attribute and value pairs")
        }
        var attributes: [String: String] = [:]
        for index in stride(from: 0, to: pairs.count, by: 2) { attributes[pairs[index]] = pairs[index + 1] }
        return attributes
    }
}

/// One item as search and lookup show it.
struct FoundItem {
    var path: ObjectPath
    var properties: ItemProperties
    /// `nil` while the item is locked.
    var secret: ItemSecret?

    /// The JSON shape of an item: the secret as UTF-8 text, or hex when it is not text.
    struct JSON: Encodable {
        var path: String
        var label: String
        var schema: String?
        var attributes: [String: String]
        /// Absent when the provider reports 0 (cofferd while the item is locked).
        var created: String?
        var modified: String?
        var locked: Bool
        var secret: String?
        var secretHex: String?
        var contentType: String?
    }

    func json(includeSecret: Bool) -> JSON {
        var attributes = properties.attributes
        let schema = attributes.removeValue(forKey: "xdg:schema")
        var result = JSON(
            path: path.rawValue, label: properties.label, schema: schema, attributes: attributes,
            created: JSONOutput.knownDate(properties.created), modified: JSONOutput.knownDate(properties.modified),
            locked: properties.locked)
        if includeSecret, let secret {
            result.contentType = secret.contentType
            let bytes = secret.value.copyBytes()
            if let text = String(validating: bytes, as: UTF8.self) { result.secret = text } else {
                result.secretHex = bytes.map { String(format: "%02x", $0) }.joined()
            }
        }
        return result
    }
}

extension SecretService {
    /// Searches every collection and returns matches, unlocked ones first (libsecret's order), unlocking the locked
    /// ones first when `unlock` is set.
    /// - Parameters:
    ///   - attributes: the attributes to match.
    ///   - unlock: unlock locked matches (may prompt).
    ///   - all: every match instead of the first.
    ///   - secrets: read the secrets of unlocked matches.
    func findItems(_ attributes: [String: String], unlock: Bool, all: Bool, secrets: Bool) async throws
        -> [FoundItem] {
        var (unlocked, locked) = try await searchItems(attributes)
        if unlock, !locked.isEmpty {
            let opened = Set(try await self.unlock(locked))
            unlocked += locked.filter { opened.contains($0) }
            locked.removeAll { opened.contains($0) }
        }
        let chosen = all ? unlocked + locked : Array((unlocked + locked).prefix(1))
        var found: [FoundItem] = []
        for path in chosen {
            let properties = try await itemProperties(path)
            let secret = secrets && !properties.locked ? try await secret(of: path) : nil
            found.append(FoundItem(path: path, properties: properties, secret: secret))
        }
        return found
    }
}

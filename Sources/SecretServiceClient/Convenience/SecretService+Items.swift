// SPDX-License-Identifier: Apache-2.0
// Item-level operations: search, create, read and write secrets, delete, and item properties.

public import DBusWire
public import SecretCrypto
import SecretServiceProtocol

extension SecretService {
    /// `Service.SearchItems` across every collection.
    /// - Parameter attributes: pairs every match must carry (exact, case-sensitive; empty matches everything).
    /// - Returns: matching items, split into those readable now and those locked.
    /// - Throws: `SecretServiceError` or ``SecretServiceClientError``.
    public func searchItems(_ attributes: [String: String]) async throws
        -> (unlocked: [ObjectPath], locked: [ObjectPath]) {
        try await service.searchItems(attributes)
    }

    /// Creates (or, with `replace`, replaces) an item, running the prompt if the provider asks for one.
    /// - Parameters:
    ///   - collection: the collection or alias path (for example ``defaultCollection()``).
    ///   - label: the human name.
    ///   - attributes: the lookup attributes.
    ///   - secret: the plaintext; it travels encoded for ``session``.
    ///   - contentType: the secret's content type.
    ///   - replace: replace an item with the same attributes instead of adding another.
    ///   - unowned: store it for no application in particular (cofferd; other providers ignore it): for imports.
    /// - Returns: the item's path.
    /// - Throws: `SecretServiceError` (`isLocked`, …), ``SecretServiceClientError/dismissed`` or other
    ///   ``SecretServiceClientError``s.
    public func createItem(in collection: ObjectPath, label: String, attributes: [String: String],
                           secret: SecretBytes, contentType: String = "text/plain", replace: Bool,
                           unowned: Bool = false) async throws -> ObjectPath {
        var properties: [String: DBusValue] = [
            SecretPropertyKeys.itemLabel: .string(label),
            SecretPropertyKeys.itemAttributes: .stringDictionary(attributes),
        ]
        if unowned { properties[SecretPropertyKeys.itemUnowned] = .boolean(true) }
        let (item, prompt) = try await collectionProxy(collection).createItem(
            properties: properties, secret: try session.encode(secret, contentType: contentType), replace: replace)
        switch try await runPrompt(prompt) {
        case .notNeeded:
            guard item != .root else {
                throw SecretServiceClientError.unexpectedReply("CreateItem returned neither an item nor a prompt")
            }
            return item
        case .dismissed:
            throw SecretServiceClientError.dismissed
        case .completed(let result):
            let created = try ReplyValue.objectPath(result, "CreateItem prompt result")
            guard created != .root else { throw SecretServiceClientError.dismissed }
            return created
        }
    }

    /// `Item.GetSecret`, decoded from the session.
    /// - Parameter item: the item's path.
    /// - Returns: the plaintext and its content type.
    /// - Throws: `SecretServiceError` (`isLocked`, `noSuchObject`) or ``SecretServiceClientError``.
    public func secret(of item: ObjectPath) async throws -> ItemSecret {
        let wire = try await itemProxy(item).getSecret(session: session.path)
        return ItemSecret(value: try session.decode(wire), contentType: wire.contentType)
    }

    /// `Service.GetSecrets` for several items in one call.
    /// - Parameter items: the items' paths.
    /// - Returns: the secrets the provider returned, by item path (locked or unknown items are usually absent).
    /// - Throws: `SecretServiceError` or ``SecretServiceClientError``.
    public func secrets(of items: [ObjectPath]) async throws -> [ObjectPath: ItemSecret] {
        try await secrets(of: items) { $0 }
    }

    /// ``secrets(of:)``, each secret handed to `transform` as soon as it is decrypted and released right after
    /// (unless `transform` keeps it), so secure memory holds one of them at a time however many are read.
    /// - Parameters:
    ///   - items: the items' paths.
    ///   - transform: what to keep of each secret (a caller that hands the bytes on copies them here).
    /// - Returns: what `transform` made of each secret the provider returned, by item path.
    /// - Throws: `SecretServiceError`, ``SecretServiceClientError`` or what `transform` throws.
    public func secrets<Kept>(of items: [ObjectPath], _ transform: (ItemSecret) throws -> Kept) async throws
        -> [ObjectPath: Kept] {
        let wires = try await service.secretEntries(items, session: session.path)
        var secrets: [ObjectPath: Kept] = [:]
        secrets.reserveCapacity(wires.count)
        for (path, wire) in wires {
            secrets[path] = try transform(ItemSecret(value: try session.decode(wire), contentType: wire.contentType))
        }
        return secrets
    }

    /// `Item.SetSecret`.
    /// - Parameters:
    ///   - item: the item's path.
    ///   - secret: the new plaintext.
    ///   - contentType: its content type.
    /// - Throws: `SecretServiceError` (`isLocked`) or ``SecretServiceClientError``.
    public func setSecret(of item: ObjectPath, to secret: SecretBytes, contentType: String = "text/plain")
        async throws {
        try await itemProxy(item).setSecret(try session.encode(secret, contentType: contentType))
    }

    /// Deletes an item, running the prompt if the provider asks for one.
    /// - Parameter item: the item's path.
    /// - Throws: ``SecretServiceClientError/dismissed``, `SecretServiceError` or ``SecretServiceClientError``.
    public func deleteItem(_ item: ObjectPath) async throws {
        if case .dismissed = try await runPrompt(try await itemProxy(item).delete()) {
            throw SecretServiceClientError.dismissed
        }
    }

    /// The properties of an item (one `GetAll`).
    /// - Parameter item: the item's path.
    /// - Throws: `SecretServiceError` or ``SecretServiceClientError`` (a property missing or mistyped).
    public func itemProperties(_ item: ObjectPath) async throws -> ItemProperties {
        try ItemProperties(decoding: try await itemProxy(item).properties.getAll(SecretServiceNames.itemInterface))
    }

    /// Renames an item.
    /// - Parameters:
    ///   - item: the item's path.
    ///   - label: the new label.
    /// - Throws: `SecretServiceError` or ``SecretServiceClientError``.
    public func setLabel(of item: ObjectPath, to label: String) async throws {
        try await itemProxy(item).setLabel(label)
    }

    /// Replaces an item's attributes.
    /// - Parameters:
    ///   - item: the item's path.
    ///   - attributes: the new attribute set.
    /// - Throws: `SecretServiceError` or ``SecretServiceClientError``.
    public func setAttributes(of item: ObjectPath, to attributes: [String: String]) async throws {
        try await itemProxy(item).setAttributes(attributes)
    }
}

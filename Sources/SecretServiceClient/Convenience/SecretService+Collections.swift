// SPDX-License-Identifier: Apache-2.0
// Collection-level operations: listing, the default collection, aliases, creating, deleting, locking.

public import DBusWire
import SecretServiceProtocol

extension SecretService {
    /// The `Collections` property: every collection's path.
    /// - Throws: `SecretServiceError` or ``SecretServiceClientError``.
    public func collections() async throws -> [ObjectPath] { try await service.collections() }

    /// The default collection, created (as "Default keyring" with alias `default`) when the alias is unset.
    ///
    /// Existence is probed as python secretstorage does: `Properties.Get(Label)` on the alias path, where
    /// `NoSuchObject`, `UnknownObject` and `UnknownMethod` mean "absent".
    /// - Returns: the alias path `/org/freedesktop/secrets/aliases/default` when the alias exists, otherwise the
    ///   path of the newly created collection.
    /// - Throws: ``SecretServiceClientError/dismissed`` when creation needed a prompt that was dismissed, and the
    ///   errors of the calls.
    public func defaultCollection() async throws -> ObjectPath {
        let alias = SecretObjectPath.alias(SecretServiceNames.defaultAlias).objectPath
        do {
            _ = try await collectionProxy(alias).label()
            return alias
        } catch SecretServiceError.noSuchObject, SecretServiceError.unknownMethod {
            return try await createCollection(label: "Default keyring", alias: SecretServiceNames.defaultAlias)
        }
    }

    /// The alias path (`/org/freedesktop/secrets/aliases/<name>`) of a set alias, usable with every collection call.
    /// - Parameter name: the alias.
    /// - Returns: the alias path, or `nil` when `ReadAlias` says the alias is unset.
    /// - Throws: `SecretServiceError` or ``SecretServiceClientError``.
    public func collection(alias name: String) async throws -> ObjectPath? {
        guard try await readAlias(name) != nil else { return nil }
        return SecretObjectPath.alias(name).objectPath
    }

    /// `ReadAlias`: the canonical path of the collection an alias names.
    /// - Parameter name: the alias.
    /// - Returns: the collection, or `nil` when the alias is unset.
    /// - Throws: `SecretServiceError` or ``SecretServiceClientError``.
    public func readAlias(_ name: String) async throws -> ObjectPath? {
        let path = try await service.readAlias(name)
        return path == .root ? nil : path
    }

    /// `SetAlias`: points an alias at a collection, or removes it.
    /// - Parameters:
    ///   - name: the alias.
    ///   - collection: the collection, or `nil` to remove the alias.
    /// - Throws: `SecretServiceError` or ``SecretServiceClientError``.
    public func setAlias(_ name: String, to collection: ObjectPath?) async throws {
        try await service.setAlias(name, collection: collection ?? .root)
    }

    /// Creates a collection, running the prompt if the provider asks for one.
    /// - Parameters:
    ///   - label: the human name.
    ///   - alias: an alias to give it, or `""`. If the alias exists, providers return that collection instead.
    /// - Returns: the collection's path.
    /// - Throws: ``SecretServiceClientError/dismissed``, `SecretServiceError` or ``SecretServiceClientError``.
    public func createCollection(label: String, alias: String = "") async throws -> ObjectPath {
        let (collection, prompt) = try await service.createCollection(
            properties: [SecretPropertyKeys.collectionLabel: .string(label)], alias: alias)
        switch try await runPrompt(prompt) {
        case .notNeeded:
            guard collection != .root else {
                throw SecretServiceClientError.unexpectedReply("CreateCollection returned neither a collection nor a prompt")
            }
            return collection
        case .dismissed:
            throw SecretServiceClientError.dismissed
        case .completed(let result):
            let created = try ReplyValue.objectPath(result, "CreateCollection prompt result")
            guard created != .root else { throw SecretServiceClientError.dismissed }
            return created
        }
    }

    /// Deletes a collection and all its items, running the prompt if the provider asks for one.
    /// - Parameter collection: the collection (or alias) path.
    /// - Throws: ``SecretServiceClientError/dismissed``, `SecretServiceError` or ``SecretServiceClientError``.
    public func deleteCollection(_ collection: ObjectPath) async throws {
        if case .dismissed = try await runPrompt(try await collectionProxy(collection).delete()) {
            throw SecretServiceClientError.dismissed
        }
    }

    /// Unlocks collections or items, running the prompt for those that need one.
    /// - Parameter objects: collection, alias or item paths.
    /// - Returns: every object that is now unlocked (at once or through the prompt).
    /// - Throws: ``SecretServiceClientError/dismissed`` when the prompt was dismissed, and the calls' errors.
    @discardableResult
    public func unlock(_ objects: [ObjectPath]) async throws -> [ObjectPath] {
        let (unlocked, prompt) = try await service.unlock(objects)
        return unlocked + (try await promptedPaths(prompt, "Unlock"))
    }

    /// Locks collections or items, running the prompt if the provider asks for one.
    /// - Parameter objects: collection, alias or item paths.
    /// - Returns: every object that is now locked.
    /// - Throws: ``SecretServiceClientError/dismissed`` when a prompt was dismissed, and the calls' errors.
    @discardableResult
    public func lock(_ objects: [ObjectPath]) async throws -> [ObjectPath] {
        let (locked, prompt) = try await service.lock(objects)
        return locked + (try await promptedPaths(prompt, "Lock"))
    }

    /// The properties of a collection (one `GetAll`).
    /// - Parameter collection: the collection (or alias) path.
    /// - Throws: `SecretServiceError` or ``SecretServiceClientError`` (a property missing or mistyped).
    public func collectionProperties(_ collection: ObjectPath) async throws -> CollectionProperties {
        let values = try await collectionProxy(collection).properties.getAll(SecretServiceNames.collectionInterface)
        func value(_ name: String) throws -> DBusValue {
            guard let value = values[name] else {
                throw SecretServiceClientError.unexpectedReply("the collection has no '\(name)' property")
            }
            return value
        }
        return CollectionProperties(
            label: try ReplyValue.string(try value("Label"), "Label"),
            items: try ReplyValue.objectPaths(try value("Items"), "Items"),
            locked: try ReplyValue.bool(try value("Locked"), "Locked"),
            created: try ReplyValue.uint64(try value("Created"), "Created"),
            modified: try ReplyValue.uint64(try value("Modified"), "Modified"))
    }

    /// Renames a collection.
    /// - Parameters:
    ///   - collection: the collection (or alias) path.
    ///   - label: the new label.
    /// - Throws: `SecretServiceError` or ``SecretServiceClientError``.
    public func setLabel(ofCollection collection: ObjectPath, to label: String) async throws {
        try await collectionProxy(collection).setLabel(label)
    }

    /// Runs an Unlock/Lock prompt and returns the paths its result (`ao`) lists.
    private func promptedPaths(_ prompt: ObjectPath, _ operation: String) async throws -> [ObjectPath] {
        switch try await runPrompt(prompt) {
        case .notNeeded: return []
        case .dismissed: throw SecretServiceClientError.dismissed
        case .completed(let result): return try ReplyValue.objectPaths(result, "\(operation) prompt result")
        }
    }
}

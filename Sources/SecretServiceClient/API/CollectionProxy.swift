// SPDX-License-Identifier: Apache-2.0
// org.freedesktop.Secret.Collection: one method per spec member, plus typed property accessors.

public import DBusTransport
public import DBusWire
public import SecretServiceProtocol

/// Calls `org.freedesktop.Secret.Collection` on a collection path or an alias path
/// (`/org/freedesktop/secrets/aliases/default`).
public struct CollectionProxy: Sendable {
    let target: ProxyTarget

    /// The collection's path (canonical or alias).
    public var path: ObjectPath { target.path }

    /// - Parameters:
    ///   - connection: the bus connection.
    ///   - path: a collection or alias path.
    ///   - destination: the provider's bus name.
    public init(connection: Connection, path: ObjectPath, destination: BusName = SecretServiceNames.busName) {
        target = ProxyTarget(connection: connection, destination: destination, path: path)
    }

    /// The `Properties` interface of this collection.
    public var properties: PropertiesProxy {
        PropertiesProxy(connection: target.connection, path: target.path, destination: target.destination)
    }

    /// `Delete() → (o prompt)`.
    /// - Returns: a prompt to run (`/` when the collection is already gone).
    /// - Throws: `SecretServiceError` or `SecretServiceClientError`.
    public func delete() async throws -> ObjectPath {
        let (body, _) = try await target.call(SecretServiceNames.collectionInterface, "Delete", expecting: "o")
        return try ReplyValue.objectPath(body[0], "prompt")
    }

    /// `SearchItems(a{ss} attributes) → (ao results)`.
    /// - Parameter attributes: pairs every match must carry.
    /// - Returns: the matching items of this collection.
    /// - Throws: `SecretServiceError` or `SecretServiceClientError`.
    public func searchItems(_ attributes: [String: String]) async throws -> [ObjectPath] {
        let (body, _) = try await target.call(
            SecretServiceNames.collectionInterface, "SearchItems", [.stringDictionary(attributes)], expecting: "ao")
        return try ReplyValue.objectPaths(body[0], "results")
    }

    /// `CreateItem(a{sv} properties, (oayays) secret, b replace) → (o item, o prompt)`.
    /// - Parameters:
    ///   - properties: fully qualified keys (`org.freedesktop.Secret.Item.Label`, `…Item.Attributes`).
    ///   - secret: the secret, encoded for one of the caller's sessions.
    ///   - replace: replace an item with the same attributes instead of adding one.
    /// - Returns: the item (`/` when a prompt must run first) and the prompt (`/` when none).
    /// - Throws: `SecretServiceError` (`isLocked`, `noSession`) or `SecretServiceClientError`.
    public func createItem(properties: [String: DBusValue], secret: WireSecret, replace: Bool) async throws
        -> (item: ObjectPath, prompt: ObjectPath) {
        let (body, _) = try await target.call(
            SecretServiceNames.collectionInterface, "CreateItem",
            [.variantDictionary(properties), secret.dbusValue, .boolean(replace)], expecting: "oo")
        return (try ReplyValue.objectPath(body[0], "item"), try ReplyValue.objectPath(body[1], "prompt"))
    }

    // MARK: - Properties

    /// The `Items` property.
    public func items() async throws -> [ObjectPath] {
        try ReplyValue.objectPaths(try await property("Items"), "Items")
    }

    /// The `Label` property.
    public func label() async throws -> String { try ReplyValue.string(try await property("Label"), "Label") }

    /// Sets the `Label` property.
    /// - Parameter label: the new label.
    public func setLabel(_ label: String) async throws {
        try await properties.set(SecretServiceNames.collectionInterface, "Label", to: .string(label))
    }

    /// The `Locked` property.
    public func isLocked() async throws -> Bool { try ReplyValue.bool(try await property("Locked"), "Locked") }

    /// The `Created` property (Unix seconds).
    public func created() async throws -> UInt64 { try ReplyValue.uint64(try await property("Created"), "Created") }

    /// The `Modified` property (Unix seconds).
    public func modified() async throws -> UInt64 { try ReplyValue.uint64(try await property("Modified"), "Modified") }

    private func property(_ name: String) async throws -> DBusValue {
        try await properties.get(SecretServiceNames.collectionInterface, name)
    }
}

// SPDX-License-Identifier: Apache-2.0
// org.freedesktop.Secret.Item: one method per spec member, plus typed property accessors.

public import DBusTransport
public import DBusWire
public import SecretServiceProtocol

/// Calls `org.freedesktop.Secret.Item` on one item path.
public struct ItemProxy: Sendable {
    let target: ProxyTarget

    /// The item's path.
    public var path: ObjectPath { target.path }

    /// - Parameters:
    ///   - connection: the bus connection.
    ///   - path: the item's path (canonical or below an alias).
    ///   - destination: the provider's bus name.
    public init(connection: Connection, path: ObjectPath, destination: BusName = SecretServiceNames.busName) {
        target = ProxyTarget(connection: connection, destination: destination, path: path)
    }

    /// The `Properties` interface of this item.
    public var properties: PropertiesProxy {
        PropertiesProxy(connection: target.connection, path: target.path, destination: target.destination)
    }

    /// `Delete() → (o prompt)`.
    /// - Returns: a prompt to run (`/` when none).
    /// - Throws: `SecretServiceError` or `SecretServiceClientError`.
    public func delete() async throws -> ObjectPath {
        let (body, _) = try await target.call(SecretServiceNames.itemInterface, "Delete", expecting: "o")
        return try ReplyValue.objectPath(body[0], "prompt")
    }

    /// `GetSecret(o session) → ((oayays) secret)`.
    /// - Parameter session: the caller's session, which encodes the answer.
    /// - Returns: the encoded secret.
    /// - Throws: `SecretServiceError` (`isLocked`, `noSession`) or `SecretServiceClientError`.
    public func getSecret(session: ObjectPath) async throws -> WireSecret {
        let (body, _) = try await target.call(
            SecretServiceNames.itemInterface, "GetSecret", [.objectPath(session)],
            expecting: Signature([WireSecret.type]))
        return try ReplyValue.secret(body[0], "secret")
    }

    /// `SetSecret((oayays) secret)`.
    /// - Parameter secret: the new secret, encoded for one of the caller's sessions.
    /// - Throws: `SecretServiceError` (`isLocked`, `noSession`) or `SecretServiceClientError`.
    public func setSecret(_ secret: WireSecret) async throws {
        try await target.call(SecretServiceNames.itemInterface, "SetSecret", [secret.dbusValue], expecting: .empty)
    }

    // MARK: - Properties

    /// The `Locked` property.
    public func isLocked() async throws -> Bool { try ReplyValue.bool(try await property("Locked"), "Locked") }

    /// The `Attributes` property.
    public func attributes() async throws -> [String: String] {
        try ReplyValue.attributes(try await property("Attributes"), "Attributes")
    }

    /// Sets the `Attributes` property.
    /// - Parameter attributes: the new attribute set (replaces the old one).
    public func setAttributes(_ attributes: [String: String]) async throws {
        try await properties.set(SecretServiceNames.itemInterface, "Attributes", to: .stringDictionary(attributes))
    }

    /// The `Label` property.
    public func label() async throws -> String { try ReplyValue.string(try await property("Label"), "Label") }

    /// Sets the `Label` property.
    /// - Parameter label: the new label.
    public func setLabel(_ label: String) async throws {
        try await properties.set(SecretServiceNames.itemInterface, "Label", to: .string(label))
    }

    /// The `Created` property (Unix seconds).
    public func created() async throws -> UInt64 { try ReplyValue.uint64(try await property("Created"), "Created") }

    /// The `Modified` property (Unix seconds).
    public func modified() async throws -> UInt64 { try ReplyValue.uint64(try await property("Modified"), "Modified") }

    private func property(_ name: String) async throws -> DBusValue {
        try await properties.get(SecretServiceNames.itemInterface, name)
    }
}

// SPDX-License-Identifier: Apache-2.0
// org.freedesktop.DBus.Properties on any provider object: Get, GetAll and Set.

public import DBusTransport
public import DBusWire
public import SecretServiceProtocol

/// Calls `org.freedesktop.DBus.Properties` on one object of the provider.
public struct PropertiesProxy: Sendable {
    let target: ProxyTarget

    /// The object's path.
    public var path: ObjectPath { target.path }

    /// - Parameters:
    ///   - connection: the bus connection.
    ///   - path: the object whose properties are read and written.
    ///   - destination: the provider's bus name.
    public init(connection: Connection, path: ObjectPath, destination: BusName = SecretServiceNames.busName) {
        target = ProxyTarget(connection: connection, destination: destination, path: path)
    }

    /// `Get(s interface, s name) → (v value)`.
    /// - Parameters:
    ///   - interface: the interface that declares the property.
    ///   - name: the property name.
    /// - Returns: the value inside the variant.
    /// - Throws: `SecretServiceError` (for example `noSuchObject`, `unknownProperty`) or `SecretServiceClientError`.
    public func get(_ interface: InterfaceName, _ name: String) async throws -> DBusValue {
        let (body, _) = try await target.call(
            SecretServiceNames.propertiesInterface, "Get", [.string(interface.rawValue), .string(name)],
            expecting: "v")
        guard let value = body[0].variantValue else { throw SecretServiceClientError.unexpectedReply("Get: no variant") }
        return value
    }

    /// `GetAll(s interface) → (a{sv} properties)`.
    /// - Parameter interface: the interface whose properties are wanted.
    /// - Returns: every property's value by name.
    /// - Throws: `SecretServiceError` or `SecretServiceClientError`.
    public func getAll(_ interface: InterfaceName) async throws -> [String: DBusValue] {
        let (body, _) = try await target.call(
            SecretServiceNames.propertiesInterface, "GetAll", [.string(interface.rawValue)], expecting: "a{sv}")
        guard let values = body[0].variantDictionary else {
            throw SecretServiceClientError.unexpectedReply("GetAll: not a property map")
        }
        return values
    }

    /// `Set(s interface, s name, v value)`.
    /// - Parameters:
    ///   - interface: the interface that declares the property.
    ///   - name: the property name.
    ///   - value: the new value (wrapped in a variant here).
    /// - Throws: `SecretServiceError` (for example `propertyReadOnly`, `isLocked`) or `SecretServiceClientError`.
    public func set(_ interface: InterfaceName, _ name: String, to value: DBusValue) async throws {
        try await target.call(
            SecretServiceNames.propertiesInterface, "Set", [.string(interface.rawValue), .string(name), .variant(value)],
            expecting: .empty)
    }
}

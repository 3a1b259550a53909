// SPDX-License-Identifier: Apache-2.0
// org.freedesktop.Secret.Session: closing a transfer session.

public import DBusTransport
public import DBusWire
public import SecretServiceProtocol

/// Calls `org.freedesktop.Secret.Session` on one session object.
public struct SessionProxy: Sendable {
    let target: ProxyTarget

    /// The session's path.
    public var path: ObjectPath { target.path }

    /// - Parameters:
    ///   - connection: the connection that opened the session (sessions belong to their connection).
    ///   - path: the session's path.
    ///   - destination: the provider's bus name.
    public init(connection: Connection, path: ObjectPath, destination: BusName = SecretServiceNames.busName) {
        target = ProxyTarget(connection: connection, destination: destination, path: path)
    }

    /// `Close()`.
    /// - Throws: `SecretServiceError` or `SecretServiceClientError`.
    public func close() async throws {
        try await target.call(SecretServiceNames.sessionInterface, "Close", expecting: .empty)
    }
}

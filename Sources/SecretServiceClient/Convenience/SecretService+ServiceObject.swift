// SPDX-License-Identifier: Apache-2.0
// Calls on the interfaces the service object carries besides the spec's: gnome-keyring's private one and Coffer's.

import DBusTransport
public import DBusWire
import SecretServiceProtocol

extension SecretService {
    /// One method call on `/org/freedesktop/secrets` with the client's error vocabulary: a missing provider is
    /// ``SecretServiceClientError/noProvider``, an error reply `SecretServiceError` (its `dbusError.name` tells
    /// `UnknownMethod` from the rest, for a provider without the interface), a broken link
    /// ``SecretServiceClientError/transport(_:)``.
    /// - Parameters:
    ///   - interface: gnome-keyring's internal interface, or one of Coffer's.
    ///   - member: the method.
    ///   - arguments: its body.
    /// - Returns: the reply's body, unchecked: each caller knows its own member's reply.
    @discardableResult
    public func callServiceObject(_ interface: InterfaceName, _ member: MemberName, _ arguments: [DBusValue])
        async throws -> [DBusValue] {
        let message = Message.methodCall(destination: destination, path: SecretServiceNames.servicePath,
                                         interface: interface, member: member, body: arguments)
        do {
            return try await connection.call(message).body
        } catch {
            throw ProxyTarget.translate(error)
        }
    }
}

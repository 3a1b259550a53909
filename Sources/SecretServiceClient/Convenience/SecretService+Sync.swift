// SPDX-License-Identifier: Apache-2.0
// Which collections a provider synchronizes between machines (cofferd's io.coffer.Sync); other providers none.

public import DBusWire
import DBusTransport
import SecretServiceProtocol

extension SecretService {
    /// The collections the provider keeps synchronized with the user's other machines (docs/SYNC.md).
    /// - Returns: their paths; none from a provider without `io.coffer.Sync` (gnome-keyring, KeePassXC, an older
    ///   cofferd), which synchronizes nothing.
    /// - Throws: `SecretServiceError` or `SecretServiceClientError` for a failed call or a malformed answer.
    public func synchronizedCollections() async throws -> [ObjectPath] {
        let call = Message.methodCall(destination: destination, path: SecretServiceNames.servicePath,
                                      interface: SecretServiceNames.syncInterface, member: "Synchronized")
        let reply: Message
        do {
            reply = try await connection.call(call)
        } catch let error as DBusError
                    where [.unknownMethod, "org.freedesktop.DBus.Error.UnknownInterface"].contains(error.name) {
            return []  // another provider
        } catch {
            throw ProxyTarget.translate(error)
        }
        guard reply.signature == "ao", case .array(_, let values)? = reply.body.first else {
            throw SecretServiceClientError.unexpectedReply("Synchronized returned '\(reply.signature)'")
        }
        return try values.map { value in
            guard case .objectPath(let path) = value else {
                throw SecretServiceClientError.unexpectedReply("Synchronized returned a non-path")
            }
            return path
        }
    }
}

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
        guard let reply = try await callCofferExtension(SecretServiceNames.syncInterface, "Synchronized") else {
            return []
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

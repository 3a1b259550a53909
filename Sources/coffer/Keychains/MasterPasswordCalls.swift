// SPDX-License-Identifier: Apache-2.0
// Calls of gnome-keyring's private master-password interface (which cofferd serves too): create, unlock and
// re-key a collection with a password the user typed, instead of a provider prompt.

import DBusTransport
import DBusWire
import SecretCrypto
import SecretServiceClient
import SecretServiceProtocol

extension SecretService {
    /// `CreateWithMasterPassword(a{sv} attributes, (oayays) master) → o`.
    func createCollection(label: String, password: SecretBytes) async throws -> ObjectPath {
        let body = try await callMasterPassword("CreateWithMasterPassword", [
            .variantDictionary([SecretPropertyKeys.collectionLabel: .string(label)]),
            try session.encode(password, contentType: "text/plain").dbusValue,
        ])
        guard let path = body.first?.objectPath else {
            throw SecretServiceClientError.unexpectedReply("CreateWithMasterPassword returned no collection")
        }
        return path
    }

    /// `UnlockWithMasterPassword(o collection, (oayays) master)`.
    func unlock(_ collection: ObjectPath, password: SecretBytes) async throws {
        try await callMasterPassword("UnlockWithMasterPassword", [
            .objectPath(collection), try session.encode(password, contentType: "text/plain").dbusValue,
        ])
    }

    /// `ChangeWithMasterPassword(o collection, (oayays) original, (oayays) master)`.
    func changePassword(of collection: ObjectPath, from old: SecretBytes, to new: SecretBytes) async throws {
        try await callMasterPassword("ChangeWithMasterPassword", [
            .objectPath(collection), try session.encode(old, contentType: "text/plain").dbusValue,
            try session.encode(new, contentType: "text/plain").dbusValue,
        ])
    }

    /// `ChangeWithPrompt(o collection) → o prompt`, run to its end.
    func changePasswordWithPrompt(of collection: ObjectPath) async throws {
        let body = try await callMasterPassword("ChangeWithPrompt", [.objectPath(collection)])
        guard let prompt = body.first?.objectPath else {
            throw SecretServiceClientError.unexpectedReply("ChangeWithPrompt returned no prompt")
        }
        if case .dismissed = try await runPrompt(prompt) { throw SecretServiceClientError.dismissed }
    }

    /// One call on the private interface, with the client's error vocabulary; a provider without the interface
    /// answers `UnknownMethod`, reported as "not supported".
    @discardableResult
    private func callMasterPassword(_ member: MemberName, _ arguments: [DBusValue]) async throws -> [DBusValue] {
        try await callServiceObject(SecretServiceNames.gnomeInternalInterface, member, arguments)
    }
}

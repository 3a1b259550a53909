// SPDX-License-Identifier: Apache-2.0
// unlock-keychain in a fresh account: the default keychain is made, not reported missing.

import DBusWire
import SecretServiceClient
import SecretServiceProtocol

/// What `coffer unlock-keychain` does when no collection is the default yet.
///
/// cofferd started by D-Bus activation in a fresh account creates `login` at the first store, through a prompt.
/// Where no prompt can be shown (an SSH session, a server), cofferd's error tells the user to run
/// `coffer unlock-keychain`; answering that with "no default keychain" would leave them nowhere to go. So an existing
/// `login` (made by `create-keychain login`, or left without its alias) becomes the default and is unlocked as
/// usual, and otherwise `login` is created with the password typed here and becomes the default, as `cofferd
/// --unlock` does on a first start.
struct FirstKeychain {
    /// The collection a fresh account's default alias names, as cofferd and gnome-keyring call it.
    static let label = SecretServiceNames.loginCollection

    /// Let the provider ask for the new password (`-u`) instead of reading it here.
    let providerPrompt: Bool
    /// The password from `-p`, if given.
    let password: String?

    /// Sets the `default` alias.
    /// - Returns: the collection it created; `nil` when an existing `login` became the default (still to unlock).
    func makeDefault(_ service: SecretService) async throws -> ObjectPath? {
        if let existing = try? await service.resolveCollection(Self.label) {
            try await service.setAlias(SecretServiceNames.defaultAlias, to: existing)
            return nil
        }
        let path: ObjectPath
        if providerPrompt {
            path = try await service.createCollection(label: Self.label)
        } else {
            let secret = try password.map { try SecretInput.fromArgv($0, "-p") } ?? SecretInput.readNewPassword(
                prompt: "password for the new keychain 'login': ", confirmation: "retype the password for 'login': ")
            path = try await service.createCollection(label: Self.label, password: secret)
        }
        try await service.setAlias(SecretServiceNames.defaultAlias, to: path)
        Console.error("created the keychain 'login', now the default")
        return path
    }
}

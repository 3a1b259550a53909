// SPDX-License-Identifier: Apache-2.0
// Checking a collection's password without unlocking, locking or rewriting anything.

public import SecretCrypto
public import SecretServiceProtocol

extension SecretStore {
    /// Whether `password` opens one of the collection's password slots, whatever its lock state; nothing changes.
    ///
    /// ``unlock(_:password:)`` cannot answer this for an unlocked collection (it has nothing left to do), yet
    /// gnome-keyring's master-password calls reject a wrong password even then, and a password change confirms the
    /// current password before it asks for a new one. The key derivation runs outside the actor, as for unlocking.
    /// - Parameters:
    ///   - id: the collection.
    ///   - password: the candidate.
    /// - Returns: `false` when the password is wrong.
    /// - Throws: `noSuchObject`; `invalidArgs` when the collection has no password (it lives in memory); `failed`.
    public nonisolated func checkPassword(of id: String, _ password: SecretBytes) async throws(SecretServiceError)
        -> Bool {
        let keys = try await slotKeys(of: id, secret: password, passwords: true)
        return try await openMaster(id, with: keys) != nil
    }
}

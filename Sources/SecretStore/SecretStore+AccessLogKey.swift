// SPDX-License-Identifier: Apache-2.0
// The key that seals a collection's entries of cofferd's access log, derived from the collection's master key.

public import SecretCrypto

/// Whether a collection's access-log key is at hand (``SecretStore/accessLogKey(of:)``).
public enum CollectionLogKey: Sendable {
    /// The collection is unlocked: its key, in secure memory.
    case available(SecretBytes)
    /// The collection is persistent and locked: its key comes back with its password.
    case locked
    /// The collection is kept in memory only, or does not exist (any more): it has no key to seal with.
    case absent
}

extension SecretStore {
    /// The key that seals the collection's entries of the access log: HKDF-SHA256 of the master key, with the
    /// collection id as salt and its own label, so it is known exactly while the collection is unlocked, and
    /// nothing else sealed with the master key's other derived keys can be passed off as a log entry.
    public func accessLogKey(of id: String) -> CollectionLogKey {
        guard let state = collections[id], !state.isInMemory else { return .absent }
        guard !state.isLocked, let keys = state.keys, let key = Self.accessLogKey(master: keys.master, id: id) else {
            return .locked
        }
        return .available(key)
    }

    /// Sets what is told a collection's previous and new access-log keys whenever a password change or a key slot's
    /// removal replaces its master key, so the log can keep its older entries readable (docs/ACCESS-CONTROL.md). Both
    /// keys are handed on because a collection that was locked is locked again at once. Called on the store's
    /// executor: the handler must only hand the keys on.
    public func onAccessLogKeyChange(_ handler: @escaping @Sendable (String, SecretBytes, SecretBytes) -> Void) {
        accessLogKeyChange = handler
    }

    func announceAccessLogKeyChange(of id: String, from oldMaster: SecretBytes, to newMaster: SecretBytes) {
        guard let accessLogKeyChange, let old = Self.accessLogKey(master: oldMaster, id: id),
              let new = Self.accessLogKey(master: newMaster, id: id) else { return }
        accessLogKeyChange(id, old, new)
    }

    private static func accessLogKey(master: SecretBytes, id: String) -> SecretBytes? {
        try? HKDF.sha256(inputKeyMaterial: master, salt: Array(id.utf8), info: Array("coffer/1 access log".utf8),
                         outputByteCount: 32)
    }
}

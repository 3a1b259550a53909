// SPDX-License-Identifier: Apache-2.0
// The key that seals a collection's entries of cofferd's access log, derived from the collection's master key.

public import SecretCrypto
import SecretServiceProtocol

/// Told a collection's previous and new access-log keys before its master key is replaced
/// (``SecretStore/onAccessLogKeyChange(_:)``).
public typealias AccessLogKeyChangeHandler = @Sendable (String, SecretBytes, SecretBytes) async throws -> Void

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
    /// removal is about to replace its master key, so the log can keep its older entries readable
    /// (docs/ACCESS-CONTROL.md). Both keys are handed on because a collection that was locked is locked again at
    /// once. The change waits for the handler: it must return only once the log holds the change durably, since a
    /// crash after the new file is in place and before that would leave the older entries sealed with a key nothing
    /// opens any more. A handler that throws stops the change (nothing is replaced). The file may still keep the old
    /// key (the change failed, or cofferd stopped), so what the handler writes must not need the new key to be used.
    public func onAccessLogKeyChange(_ handler: @escaping AccessLogKeyChangeHandler) {
        accessLogKeyChange = handler
    }

    /// Tells the access log, and waits for it, that the master key is to change from `oldMaster` to `newMaster`.
    /// Other calls run on the store meanwhile: the caller checks again that `oldMaster` is still the master key.
    func announceAccessLogKeyChange(of id: String, from oldMaster: SecretBytes, to newMaster: SecretBytes) async
        throws(SecretServiceError) {
        guard let accessLogKeyChange else { return }
        guard let old = Self.accessLogKey(master: oldMaster, id: id),
              let new = Self.accessLogKey(master: newMaster, id: id) else {
            throw .failed("the access log keys for the collection's new master key could not be made")
        }
        do {
            try await accessLogKeyChange(id, old, new)
        } catch {
            throw .failed("the access log could not record the change of the collection's key: \(error)")
        }
    }

    private static func accessLogKey(master: SecretBytes, id: String) -> SecretBytes? {
        try? HKDF.sha256(inputKeyMaterial: master, salt: Array(id.utf8), info: Array("coffer/1 access log".utf8),
                         outputByteCount: 32)
    }
}

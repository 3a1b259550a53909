// SPDX-License-Identifier: Apache-2.0
// The sync state across a re-key of its collection (docs/SYNC.md, "Re-keying and the sync state"): written in two
// phases, so that whatever moment a crash picks, a state that opens with the collection file's master key is on disk.

#if canImport(Glibc)
import Glibc
#endif
import Logging
import SecretCrypto
import SecretServiceProtocol

/// What opening a collection's sync state with the local master key found.
enum SyncStateOpening {
    /// The collection is not synchronized.
    case notSynchronized
    /// The state, and the synchronized collection's master key it holds.
    case opened(SyncStateFile, masterKey: SecretBytes)
    /// Neither the state nor a state prepared for a re-key opens with this key: it was sealed under a master key the
    /// collection file no longer holds (a re-key by a version without the prepared state, or the file was altered).
    case sealedUnderAnotherKey(any Error)
}

extension SecretStore {
    /// `<collection>.state.next`: the state sealed under the master key a re-key is about to put in place.
    func syncStateNextPath(of id: String) -> String? { syncStatePath(of: id).map { $0 + SyncStateFile.nextSuffix } }

    /// Opens the sync state of `id` with `localMaster`, the master key the collection file holds now, and settles
    /// what an interrupted re-key left. A `.state.next` is written before the collection file is replaced and
    /// renamed over `.state` after, so:
    /// - a `.state` that opens makes a `.state.next` stale: the crash came before the new file was in place, and the
    ///   key it is sealed under was never used. It is removed, or the next re-key's exclusive create would meet it;
    /// - a `.state` that does not open while the `.state.next` does means the new file is in place: the `.state.next`
    ///   takes its place, as the re-key would have done.
    /// A `.state.next` without a `.state` (a crash while leaving) means nothing and is removed.
    /// - Throws: `failed` when the state cannot be read or decoded, or fails to open for another reason than a key
    ///   it is not sealed under.
    func openSyncState(of id: String, localMaster: SecretBytes) throws(SecretServiceError) -> SyncStateOpening {
        guard let path = syncStatePath(of: id), let nextPath = syncStateNextPath(of: id), let directory = syncDirectory
        else { return .notSynchronized }
        guard let current = try readSyncState(at: path) else {
            removeStaleSyncState(nextPath, of: id)
            return .notSynchronized
        }
        let failure: any Error
        do {
            let masterKey = try current.masterKey(localMaster: localMaster, localID: id)
            removeStaleSyncState(nextPath, of: id)
            return .opened(current, masterKey: masterKey)
        } catch let error as CryptoError where error == .authenticationFailed {
            failure = error
        } catch {
            // Out of secure memory, say: no proof that the state is sealed under another key.
            throw .failed("the collection's sync state cannot be opened now: \(error)")
        }
        // A `.state.next` that cannot be read is no proof of anything: the state stays as it is.
        guard let next = try? readSyncState(at: nextPath), next.collection == current.collection,
              next.device == current.device,
              let masterKey = try? next.masterKey(localMaster: localMaster, localID: id)
        else { return .sealedUnderAnotherKey(failure) }
        guard rename(nextPath, path) == 0 else {
            // The prepared state opens; it is used now and put in place at the next opening.
            logger.error("the sync state sealed under the collection's new keys could not be put in place",
                         metadata: ["secret.collection": "\(id)", "error": "\(String(cString: strerror(errno)))"])
            return .opened(next, masterKey: masterKey)
        }
        do {
            try POSIXFile.syncDirectory(directory)
        } catch {
            // Until the directory is synced a crash may bring the old pair back; the next opening settles it again.
            logger.warning("the sync state put in place may not survive a crash",
                           metadata: ["secret.collection": "\(id)", "error": "\(error)"])
        }
        return .opened(next, masterKey: masterKey)
    }

    /// Before a re-key replaces the collection file: writes the sync state with the synchronized master key sealed
    /// under the `new` local master key to `.state.next` (created exclusively, never through a link, synced, and the
    /// directory synced), so that a state opening with the new file is durable before the new file can be.
    /// A state that no longer opens with `old` is left as it is (it cannot be carried over; logged).
    /// - Throws: `failed` when the state cannot be read or the prepared state cannot be written: the re-key must
    ///   not go ahead, or the collection would keep a sync state that opens with no key it holds.
    func prepareSyncStateRekey(of id: String, from old: SecretBytes, to new: SecretBytes)
        throws(SecretServiceError) {
        let opening = try openSyncState(of: id, localMaster: old)
        guard let nextPath = syncStateNextPath(of: id), let directory = syncDirectory else { return }
        switch opening {
        case .notSynchronized:
            return
        case .sealedUnderAnotherKey(let error):
            logger.error("the sync state does not open with the collection's keys; it has to leave and sync anew",
                         metadata: ["secret.collection": "\(id)", "error": "\(error)"])
            return
        case .opened(let state, let masterKey):
            do {
                let prepared = try SyncStateFile.make(collection: state.collection, device: state.device,
                                                      folder: state.folder, masterKey: masterKey, localMaster: new,
                                                      localID: id)
                try POSIXFile.writeSynced(nextPath, prepared.encode())
                try POSIXFile.syncDirectory(directory)
            } catch {
                throw .failed("the sync state cannot be prepared for the collection's new keys: \(error)")
            }
        }
    }

    /// After a re-key's collection file was written, or failed to be: settles the sync state with the master key
    /// the collection holds now (the prepared state put in place, or removed when the old file stayed). A locked
    /// collection (the new file's generation could not be recorded) is settled at its next unlock.
    func settleSyncStateRekey(of id: String) {
        guard let keys = collections[id]?.keys else { return }
        do {
            if case .sealedUnderAnotherKey(let error) = try openSyncState(of: id, localMaster: keys.master) {
                throw error
            }
        } catch {
            logger.error("the sync state could not be settled after the collection's keys changed",
                         metadata: ["secret.collection": "\(id)", "error": "\(error)"])
        }
    }

    private func removeStaleSyncState(_ path: String, of id: String) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        if unlink(path) == 0 {
            logger.notice("a sync state prepared for a re-key that did not take place was removed",
                          metadata: ["secret.collection": "\(id)"])
        }
    }
}

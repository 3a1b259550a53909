// SPDX-License-Identifier: Apache-2.0
// Leaving a synchronized collection on this machine (`coffer sync leave`, docs/SYNC.md): the local items stay, the
// link to the folder goes.

#if canImport(Glibc)
import Glibc
#endif
import CollectionSync
import Logging
public import SecretServiceProtocol

/// What `coffer sync leave` ended.
public struct SyncLeft: Sendable, Equatable {
    /// The synchronized collection's id (its directory in the folder).
    public let collection: String
    /// The device id this machine wrote its journal under; that journal stays in the folder.
    public let device: String
    /// The folder the collection was synchronized through.
    public let folder: String
}

extension SecretStore {
    /// Stops synchronizing a collection on this machine. The collection keeps its items, as a local collection; its
    /// sync state (ids, sealed master key, how far other journals were merged) goes from the data directory. Nothing
    /// in the folder changes: the other devices' journals are theirs, and this device's journal and wrap stay so
    /// the other machines keep what it wrote and a machine joining later still finds it. Works locked or unlocked
    /// (no key is needed to forget).
    ///
    /// Joining again (`coffer sync join`) makes a new local collection with a **new** device id: the old journal may
    /// have reached other machines in a later state than this machine's copy of the folder holds, and writing on
    /// under the old id from an older copy would fork it and get it set aside everywhere.
    /// - Throws: `noSuchObject`; `invalidArgs` for a collection that is not synchronized (or is being made so);
    ///   `failed` when the state cannot be removed (the collection then stays synchronized).
    public func leaveSync(of id: String) throws(SecretServiceError) -> SyncLeft {
        _ = try state(of: id)
        guard !enablingSync.contains(id) else { throw .invalidArgs("the collection is being synchronized right now") }
        guard let stateFile = try readSyncState(of: id), let statePath = syncStatePath(of: id),
              let directory = syncDirectory
        else { throw .invalidArgs("the collection is not synchronized") }
        // The state goes first: without it the collection is not synchronized, whatever else is left; the followers
        // file alone is never read.
        guard unlink(statePath) == 0 || errno == ENOENT else {
            throw .failed("the sync state cannot be removed: \(String(cString: strerror(errno)))")
        }
        forgetSync(of: id)
        do {
            try POSIXFile.syncDirectory(directory)
        } catch {
            // Removed, but a crash may bring the state back: the collection would then be synchronized again.
            logger.error("leaving synchronization may not survive a crash", metadata: [
                "secret.collection": "\(id)", "error": "\(error)"])
        }
        if configuredSyncFolders.removeValue(forKey: id) != nil {
            // Only memory forgets it: the file is the user's to edit.
            logger.notice("cofferd.conf still names a sync-folder for it; the next start synchronizes it anew",
                          metadata: ["secret.collection": "\(id)"])
        }
        logger.notice("collection no longer synchronized", metadata: [
            "secret.collection": "\(id)", "sync.collection": "\(stateFile.collection)",
            "sync.device": "\(stateFile.device)"])
        return SyncLeft(collection: stateFile.collection.description, device: stateFile.device.description,
                        folder: stateFile.folder)
    }

    /// Clears the synchronized ids and merge stamps a collection's items kept from a synchronized collection it
    /// left. Run when it is made synchronized again: a new synchronized collection holds none of those items yet,
    /// and an item that still held a merged stamp would be taken for one the new journal need not publish.
    func forgetFormerSyncFields(of state: CollectionState) throws(SecretServiceError) -> [PendingWrite] {
        var pending: [PendingWrite] = []
        let collectionModified = state.modified
        for itemID in try itemIDs(in: state.id) {
            guard let stored = state.items[itemID], var meta = try openMeta(itemID, in: state),
                  meta.syncItem != nil || meta.syncStamp != nil
            else { continue }
            meta.syncItem = nil
            meta.syncStamp = nil
            if let write = try write(stored, meta: meta, secret: nil, in: state) { pending.append(write) }
        }
        collections[state.id]?.modified = collectionModified
        return pending
    }
}

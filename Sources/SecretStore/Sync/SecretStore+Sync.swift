// SPDX-License-Identifier: Apache-2.0
// Synchronized collections (docs/SYNC.md): the link between an unlocked collection and its folder, opened and
// brought level with the collection.

#if canImport(Glibc)
import Glibc
#endif
import CollectionSync
import Logging
import SecretCrypto
import SecretServiceProtocol

extension SecretStore {
    // MARK: - The link

    var syncDirectory: String? { directory.map { $0 + "/" + SyncStateFile.directoryName } }

    func syncStatePath(of id: String) -> String? {
        syncDirectory.map { $0 + "/" + id + SyncStateFile.suffix }
    }

    func readSyncState(of id: String) throws(SecretServiceError) -> SyncStateFile? {
        guard let path = syncStatePath(of: id) else { return nil }
        return try readSyncState(at: path)
    }

    func readSyncState(at path: String) throws(SecretServiceError) -> SyncStateFile? {
        do {
            guard let bytes = try POSIXFile.read(path, limit: 1 << 16) else { return nil }
            return try SyncStateFile.decode(bytes)
        } catch {
            throw .failed("the collection's sync state cannot be read: \(error)")
        }
    }

    /// The unlocked collection's link to its folder, opened when missing; `nil` for a collection that is not
    /// synchronized. Opening verifies this device's journal (cutting off a torn last record), verifies again the part
    /// of each other journal merged before, brings this device's journal level with the collection (every local
    /// change it lacks, after a failed write or a crash between the two writes, is written again, and every item
    /// gone here is deleted), then merges what is new in the other journals. The reading and verifying happen on the
    /// store's thread, once per unlock; the appends are synced off it.
    /// - Throws: `failed` when the journal cannot be opened or written: the caller changes nothing.
    func syncLink(for id: String) async throws(SecretServiceError) -> SyncLink? {
        if let link = syncLinks[id] { return link }
        let state = try unlockedState(of: id)
        guard let keys = state.keys else { return nil }
        var stateFile: SyncStateFile
        let masterKey: SecretBytes
        switch try openSyncState(of: id, localMaster: keys.master) {
        case .notSynchronized:
            return nil
        case .sealedUnderAnotherKey(let error):
            throw .failed("the collection's sync state does not open with its keys: \(error)")
        case .opened(let opened, let key):
            (stateFile, masterKey) = (opened, key)
        }
        let link: SyncLink
        var descriptors: [Int32] = []
        var pending: [PendingWrite] = []
        do {
            // The folder named in the settings wins over the one recorded (the engine's folder moved); the recorded
            // one is part of what the master key is sealed with, so it is replaced only now.
            if let configured = configuredSyncFolders[id] { stateFile.folder = configured }
            let syncKeys = try SyncKeys(masterKey: masterKey, collection: stateFile.collection)
            let opened = try CollectionSync.JournalWriter.open(folder: stateFile.syncFolder, device: stateFile.device,
                                                               keys: syncKeys)
            var merged = MergedCollection()
            for record in opened.records { merged.merge(record) }
            link = SyncLink(state: stateFile, masterKey: masterKey, keys: syncKeys, writer: opened.writer,
                            merged: merged)
            // What was merged from the others before, so that catching up below takes it for what it is.
            link.followers = try resumeFollowers(of: id, link: link)
            if link.merged.deviceNames[stateFile.device] == nil {
                descriptors.append(try link.append(.deviceName(Self.hostName())))
            }
            try publishDifferences(of: state, through: link, descriptors: &descriptors, pending: &pending)
            try mergeArrivals(through: link, into: state, pending: &pending)
        } catch {
            descriptors.forEach { _ = Glibc.close($0) }
            // Ids given to items meanwhile are kept: they are written, and the next opening uses them.
            try? await settleAll(pending)
            if let error = error as? SecretServiceError { throw error }
            throw .failed("the collection's sync journal cannot be written: \(error)")
        }
        syncLinks[id] = link
        syncFolderSink.yield(OpenedSyncFolder(collection: id, directory: link.state.syncFolder.directory,
                                              ownJournal: link.state.device.description + ".journal"))
        try await settleAll(pending)
        if let last = descriptors.popLast() {
            descriptors.forEach { _ = Glibc.close($0) }
            try await settleJournal(last, of: id)
        }
        await saveFollowers(of: id, link: link)
        return link
    }

    /// Writes to the journal each local change it does not hold, giving items their synchronized id first, and
    /// deletes what the merged journals hold that is gone locally. `link.merged` holds this device's journal and
    /// what was merged from the others before (all of which the collection file holds, durably), so a difference
    /// is a local change the journal lacks; an item holding a merged change is left to the merge.
    private func publishDifferences(of state: CollectionState, through link: SyncLink, descriptors: inout [Int32],
                                    pending: inout [PendingWrite]) throws {
        guard let vault = state.vault else { throw SecretServiceError.isLocked("the collection is locked") }
        var present: Set<SyncItemID> = []
        var stale: [SyncItemID] = []
        for itemID in try itemIDs(in: state.id) {
            guard let stored = state.items[itemID], var meta = try openMeta(itemID, in: state) else { continue }
            if meta.syncItem == nil {
                meta.syncItem = Self.newSyncItemID()
                let collectionModified = state.modified
                if let write = try write(stored, meta: meta, secret: nil, in: state) { pending.append(write) }
                collections[state.id]?.modified = collectionModified
            }
            guard let syncID = meta.syncItem.flatMap(SyncItemID.init(bytes:)) else { continue }
            present.insert(syncID)
            link.localItems[syncID] = itemID
            // An item that holds a merged change is as its journal has it, merged again below if the followers' state
            // did not keep up; only local changes are published.
            if let held = meta.syncStamp.flatMap(ChangeStamp.init(bytes:)) {
                // Unless a later change is in the journals already merged (this device's own, written to the
                // journal just before a crash kept it from the collection file): the item is brought up to it.
                if let winner = link.merged.entries[syncID]?.stamp, winner > held { stale.append(syncID) }
                continue
            }
            let secret = try vault.openSecret(stored.sealed.secret(in: state.image), item: itemID)
            let content = SyncItemContent(meta: meta, secret: secret)
            if link.merged.entries[syncID]?.content != content {
                descriptors.append(try link.append(.put(syncID, content)))
            }
        }
        for (syncID, entry) in link.merged.entries.sorted(by: { $0.key < $1.key })
        where entry.content != nil && !present.contains(syncID) {
            descriptors.append(try link.append(.delete(syncID)))
        }
        for syncID in stale { try bringLocal(syncID, to: link, in: state, pending: &pending) }
    }

    /// Opens a synchronized collection's journal at unlock, so that it catches up with changes a crash or a
    /// failed write kept from it. A failure is logged and kept for status; the unlock stands, and the next change
    /// tries again (and fails rather than be acknowledged without reaching the journal).
    func openSyncAfterUnlock(_ id: String) async {
        do {
            _ = try await syncLink(for: id)
        } catch {
            logger.error("the collection's sync journal could not be opened",
                         metadata: ["secret.collection": "\(id)", "error": "\(error)"])
        }
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

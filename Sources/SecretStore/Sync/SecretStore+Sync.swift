// SPDX-License-Identifier: Apache-2.0
// Synchronized collections (docs/SYNC.md): enabling, and writing every local change to this device's journal.

#if canImport(Glibc)
import Glibc
#endif
import CollectionSync
import Logging
public import SecretCrypto
public import SecretServiceProtocol

extension SecretStore {
    /// Makes a persistent collection synchronized through `folder`: a new synchronized collection id, device id and
    /// master key; the master key wrapped with the collection's password in the folder (so another machine can
    /// join with the password); the ids and the sealed master key in the data directory; then every item written
    /// to this device's new journal. From then on every change of the collection's items is appended to the journal
    /// and synced before it is acknowledged.
    /// - Parameters:
    ///   - password: the collection's password; it unlocks a locked collection and is what the wrap opens with.
    ///   - folder: an existing directory, absolute, that a sync engine carries between machines.
    /// - Throws: `denied` for a wrong password; `invalidArgs` for a collection kept in memory, one already
    ///   synchronized, or a folder that is not an absolute path to a directory; `failed` when a file cannot be
    ///   written (nothing is enabled then).
    public nonisolated func enableSync(of id: String, password: SecretBytes, folder: String) async
        throws(SecretServiceError) -> SyncEnabled {
        try await checkSyncEnable(of: id, folder: folder)
        let enabled: SyncEnabled
        do {
            enabled = try await enableSyncChecked(of: id, password: password, folder: folder)
        } catch {
            await endSyncEnable(of: id)
            throw error
        }
        await endSyncEnable(of: id)
        return enabled
    }

    private nonisolated func enableSyncChecked(of id: String, password: SecretBytes, folder: String) async
        throws(SecretServiceError) -> SyncEnabled {
        let opened = try await collectionInfo(id, countingItemTimes: false).isLocked
            ? try await unlock(id, password: password) : try await checkPassword(of: id, password)
        guard opened else { throw .denied("the password does not open this collection") }
        let collection = SyncCollectionID.random()
        let device = DeviceID.random()
        let parameters = keyDerivation
        let masterKey = try await offTheCallersExecutor { () throws(SecretServiceError) -> SecretBytes in
            do {
                let masterKey = try SecureRandom.secretBytes(count: AES256GCM.keyByteCount)
                let keys = try SyncKeys(masterKey: masterKey, collection: collection)
                let clock = HybridTimestamp(milliseconds: HybridLogicalClock.systemMilliseconds(), counter: 0)
                let wrap = try PasswordWrap.make(masterKey: masterKey, password: password, keys: keys, device: device,
                                                 clock: clock, parameters: parameters)
                try SyncFolder(root: folder, collection: collection).store(wrap)
                return masterKey
            } catch {
                throw .failed("the sync folder could not be set up: \(error)")
            }
        }
        return try await finishSyncEnable(of: id, collection: collection, device: device, folder: folder,
                                          masterKey: masterKey)
    }

    private func endSyncEnable(of id: String) {
        enablingSync.remove(id)
    }

    private func checkSyncEnable(of id: String, folder: String) throws(SecretServiceError) {
        guard try state(of: id).file != nil else {
            throw .invalidArgs("only a collection kept in a file (with a password) can be synchronized")
        }
        guard try readSyncState(of: id) == nil, !enablingSync.contains(id) else {
            throw .invalidArgs("the collection is already synchronized")
        }
        var info = stat()
        guard folder.hasPrefix("/"), stat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw .invalidArgs("the sync folder must be an existing directory, named by its absolute path")
        }
        enablingSync.insert(id)
    }

    func finishSyncEnable(of id: String, collection: SyncCollectionID, device: DeviceID, folder: String,
                                  masterKey: SecretBytes) async throws(SecretServiceError) -> SyncEnabled {
        let state = try unlockedState(of: id)
        guard let keys = state.keys, let path = syncStatePath(of: id), let directory = syncDirectory else {
            throw .invalidArgs("only a collection kept in a file (with a password) can be synchronized")
        }
        let file: SyncStateFile
        do {
            file = try SyncStateFile.make(collection: collection, device: device, folder: folder,
                                          masterKey: masterKey, localMaster: keys.master, localID: id)
            try POSIXFile.ensureDirectory(directory)
        } catch {
            throw .failed("the sync state could not be made: \(error)")
        }
        if case .failed(let reason) = await syncer.replace(path, with: file.encode(), directory: directory) {
            throw .failed("the sync state could not be saved: \(reason)")
        }
        logger.notice("collection synchronized", metadata: ["secret.collection": "\(id)", "sync.folder": "\(folder)",
                                                            "sync.collection": "\(collection)", "sync.device": "\(device)"])
        _ = try await syncLink(for: id)
        return SyncEnabled(collection: collection.description, device: device.description)
    }

    /// Takes the `sync-folder` settings: a collection named there is made synchronized through its folder at its
    /// next unlock with its password (the password wrap needs it), and one already synchronized finds its
    /// journals in the folder named there (a folder the engine moved).
    public func configureSyncFolders(_ folders: [String: String]) {
        configuredSyncFolders = folders
    }

    /// Enables a collection the settings name, after an unlock with its password; failures are logged (the unlock
    /// stands).
    nonisolated func enableConfiguredSync(of id: String, password: SecretBytes) async {
        guard let folder = await configuredSyncFolders[id], (try? await readSyncState(of: id)) ?? nil == nil,
              await !enablingSync.contains(id)
        else { return }
        do {
            _ = try await enableSync(of: id, password: password, folder: folder)
        } catch {
            logger.error("the collection could not be synchronized through its sync-folder",
                         metadata: ["secret.collection": "\(id)", "sync.folder": "\(folder)", "error": "\(error)"])
        }
    }

    // MARK: - The link

    var syncDirectory: String? { directory.map { $0 + "/" + SyncStateFile.directoryName } }

    func syncStatePath(of id: String) -> String? {
        syncDirectory.map { $0 + "/" + id + SyncStateFile.suffix }
    }

    func readSyncState(of id: String) throws(SecretServiceError) -> SyncStateFile? {
        guard let path = syncStatePath(of: id) else { return nil }
        do {
            guard let bytes = try POSIXFile.read(path, limit: 1 << 16) else { return nil }
            return try SyncStateFile.decode(bytes)
        } catch {
            throw .failed("the collection's sync state cannot be read: \(error)")
        }
    }

    /// The unlocked collection's link to its folder, opened when missing; `nil` for a collection that is not
    /// synchronized. Opening verifies this device's journal, cuts off a torn last record, and brings the journal
    /// level with the collection: every item the journal does not hold as it is now (changed while a write to the
    /// folder failed, or before a crash between the two writes) is written again, and every item it holds that
    /// is gone is deleted.
    /// - Throws: `failed` when the journal cannot be opened or written: the caller changes nothing.
    func syncLink(for id: String) async throws(SecretServiceError) -> SyncLink? {
        if let link = syncLinks[id] { return link }
        let state = try unlockedState(of: id)
        guard let keys = state.keys, var stateFile = try readSyncState(of: id) else { return nil }
        if let configured = configuredSyncFolders[id] { stateFile.folder = configured }
        let link: SyncLink
        var descriptors: [Int32] = []
        var pending: [PendingWrite] = []
        do {
            let masterKey = try stateFile.masterKey(localMaster: keys.master, localID: id)
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
            for write in pending { try? await settle(write) }
            syncProblems[id] = "\(error)"
            if let error = error as? SecretServiceError { throw error }
            throw .failed("the collection's sync journal cannot be written: \(error)")
        }
        syncLinks[id] = link
        syncProblems[id] = nil
        syncFolderSink.yield(OpenedSyncFolder(collection: id, directory: link.state.syncFolder.directory,
                                              ownJournal: link.state.device.description + ".journal"))
        for write in pending { try await settle(write) }
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
                meta.syncItem = SyncItemID.random().bytes
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

    /// Seals the synchronized collection's master key again after a re-key replaced the local master key. Written
    /// synchronously, as the re-keyed collection file itself is; a crash between the two leaves a state that no
    /// longer opens (reported, and the collection has to be synchronized anew).
    func resealSyncState(of id: String, from old: SecretBytes, to new: SecretBytes) {
        do {
            guard let state = try readSyncState(of: id), let path = syncStatePath(of: id), let directory = syncDirectory
            else { return }
            let resealed = try state.resealed(localMaster: old, to: new, localID: id)
            try POSIXFile.replace(path, with: resealed.encode(), directory: directory)
        } catch {
            syncProblems[id] = "\(error)"
            logger.error("the sync state could not be sealed under the new keys",
                         metadata: ["secret.collection": "\(id)", "error": "\(error)"])
        }
    }

    // MARK: - Local changes

    /// Gives `meta` a synchronized id when its collection is synchronized and it has none.
    /// A local change: the item no longer holds a merged change.
    func prepareForSync(_ meta: inout ItemMeta, link: SyncLink?) {
        guard link != nil else { return }
        if meta.syncItem == nil { meta.syncItem = SyncItemID.random().bytes }
        meta.syncStamp = nil
    }

    /// Appends an item's new content to the journal, in the actor step that wrote it locally.
    /// - Parameter secret: the new secret, or `nil` when it did not change (it is then read back).
    /// - Returns: the descriptor to pass to ``settle(_:journal:)``; `nil` when the collection is not synchronized.
    func journalPut(_ item: String, meta: ItemMeta, secret: SecretBytes?, link: SyncLink?, in collection: String)
        throws(SecretServiceError) -> JournalWrite? {
        guard let link, let syncID = meta.syncItem.flatMap(SyncItemID.init(bytes:)) else { return nil }
        let state = try unlockedState(of: collection)
        guard let vault = state.vault, let stored = state.items[item] else { throw .noSuchObject("no such item") }
        do {
            let value = try secret ?? vault.openSecret(stored.sealed.secret(in: state.image), item: item)
            link.localItems[syncID] = item
            return JournalWrite(descriptor: try link.append(.put(syncID, SyncItemContent(meta: meta, secret: value))))
        } catch {
            return try journalFailed(error, collection: collection)
        }
    }

    /// Appends a deletion to the journal, in the actor step that wrote it locally.
    func journalDelete(_ meta: ItemMeta?, link: SyncLink?, in collection: String) throws(SecretServiceError)
        -> JournalWrite? {
        guard let link, let syncID = meta?.syncItem.flatMap(SyncItemID.init(bytes:)) else { return nil }
        link.localItems[syncID] = nil
        do {
            return JournalWrite(descriptor: try link.append(.delete(syncID)))
        } catch {
            return try journalFailed(error, collection: collection)
        }
    }

    /// The local change stands (it is written, and memory holds it); the journal does not hold it. The link is
    /// dropped, so the next change opens the journal again and writes what it lacks.
    private func journalFailed(_ error: any Error, collection: String) throws(SecretServiceError) -> JournalWrite? {
        syncLinks[collection] = nil
        syncProblems[collection] = "\(error)"
        logger.error("a change could not be written to the sync journal",
                     metadata: ["secret.collection": "\(collection)", "error": "\(error)"])
        return JournalWrite(failure: "\(error)")
    }

    /// What a journal append left to wait for.
    struct JournalWrite {
        var descriptor: Int32 = -1
        var failure: String?
    }

    /// ``settle(_:)`` for the collection's file and the journal together: both syncs are queued at once (one round
    /// of the sync thread usually takes both), and the change is acknowledged when both are durable.
    func settle(_ pending: PendingWrite?, journal: JournalWrite?, of collection: String) async
        throws(SecretServiceError) {
        guard let journal else { return try await settle(pending) }
        if let failure = journal.failure {
            try await settle(pending)
            throw .failed("the change was saved here but not in the sync folder: \(failure)")
        }
        let syncer = self.syncer
        async let journalResult = syncer.sync(journal.descriptor)
        do {
            try await settle(pending)
        } catch {
            _ = await journalResult
            throw error
        }
        try checkJournalSync(await journalResult, of: collection)
    }

    private func settleJournal(_ descriptor: Int32, of collection: String) async throws(SecretServiceError) {
        try checkJournalSync(await syncer.sync(descriptor), of: collection)
    }

    private func checkJournalSync(_ result: Int32, of collection: String) throws(SecretServiceError) {
        guard result != 0 else { return }
        // What the journal holds is unknown now: reopening verifies it and writes again what it lacks.
        syncLinks[collection] = nil
        let reason = "\(StorageError("cannot sync", "the sync journal", errno: result))"
        syncProblems[collection] = reason
        throw .failed("the change was saved here but not in the sync folder: \(reason)")
    }

    /// Forgets a deleted collection's link and state (the folder keeps the journals: other devices still read them).
    func forgetSync(of id: String) {
        syncLinks[id] = nil
        syncProblems[id] = nil
        if let path = syncStatePath(of: id) { unlink(path) }
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension SyncItemContent {
    init(meta: ItemMeta, secret: SecretBytes) {
        self.init(label: meta.label, attributes: meta.attributes, contentType: meta.contentType, secret: secret,
                  created: meta.created, modified: meta.modified)
    }
}

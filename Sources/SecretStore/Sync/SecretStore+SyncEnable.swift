// SPDX-License-Identifier: Apache-2.0
// Making a collection synchronized (docs/SYNC.md): `coffer sync enable`, the sync-folder setting, and joining one
// made on another machine.

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
        try await settleAll(try forgetFormerSyncFields(of: state))
        // Followers of a synchronized collection this one left belong to other journals.
        if let followers = syncFollowersPath(of: id) { unlink(followers) }
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
}

extension SecretStore {
    /// Joins a synchronized collection made on another machine: opens the newest password wrap in the folder that
    /// `password` opens, makes a local collection with the same password, and merges every journal into it. From
    /// then on the collection is unlocked like any other (its own key slots); the folder's password is not asked
    /// again.
    /// - Parameters:
    ///   - folder: the folder the sync engine carries, an absolute path.
    ///   - collection: the synchronized collection's id, when the folder holds more than one.
    ///   - label: the local collection's name (the folder holds none).
    /// - Returns: the local collection's id and the synchronized ids.
    /// - Throws: `denied` when the password opens no wrap; `invalidArgs` for a folder holding no or several
    ///   collections (without `collection`), or one already joined here; `failed`.
    public nonisolated func joinSync(folder: String, collection: String?, password: SecretBytes, label: String) async
        throws(SecretServiceError) -> (id: String, enabled: SyncEnabled) {
        guard folder.hasPrefix("/") else { throw .invalidArgs("the sync folder must be named by its absolute path") }
        let found: [SyncCollectionID]
        do { found = try SyncFolder.collections(in: folder) } catch {
            throw .invalidArgs("the sync folder cannot be read: \(error)")
        }
        let chosen: SyncCollectionID
        if let collection {
            guard let id = SyncIdentifier(hex: collection), found.contains(id) else {
                throw .invalidArgs("no synchronized collection \(collection) in \(folder)")
            }
            chosen = id
        } else {
            guard found.count == 1, let only = found.first else {
                throw .invalidArgs(found.isEmpty ? "no synchronized collection in \(folder)"
                    : "\(folder) holds \(found.count) synchronized collections; name one")
            }
            chosen = only
        }
        try await checkNotJoined(chosen)
        let syncFolder = SyncFolder(root: folder, collection: chosen)
        let masterKey = try await offTheCallersExecutor { () throws(SecretServiceError) -> SecretBytes in
            let wraps: [PasswordWrap]
            do { wraps = try syncFolder.wraps() } catch { throw .failed("the wraps cannot be read: \(error)") }
            for wrap in wraps {
                if let key = try? wrap.unwrap(password: password) { return key }
            }
            throw .denied("the password opens no wrap of this synchronized collection")
        }
        let (id, _) = try await createCollection(label: label, alias: "", password: password)
        do {
            let enabled = try await finishSyncEnable(of: id, collection: chosen, device: .random(), folder: folder,
                                                     masterKey: masterKey)
            return (id, enabled)
        } catch {
            // Nothing joined: the new, empty collection goes rather than stay half made.
            try? await deleteCollection(id)
            throw error
        }
    }

    private func checkNotJoined(_ collection: SyncCollectionID) throws(SecretServiceError) {
        for id in collections.keys where (try? readSyncState(of: id))??.collection == collection {
            throw .invalidArgs("the synchronized collection is already here, as \(id)")
        }
    }
}

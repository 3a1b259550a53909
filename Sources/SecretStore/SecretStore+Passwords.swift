// SPDX-License-Identifier: Apache-2.0
// Password-protected collections: create, and unlock with full verification of the file.

public import SecretCrypto
public import SecretServiceProtocol

extension SecretStore {
    // MARK: - Creating

    /// Creates a collection kept in an encrypted file, protected by `password`, or returns the one `alias` names.
    /// The key derivation (deliberately slow) runs outside the actor so other calls keep being served.
    /// - Returns: the identifier, and whether a new collection was made.
    /// - Throws: `failed` when there is no data directory or the file cannot be written; `invalidArgs`, `limitsExceeded`.
    public nonisolated func createCollection(label: String, alias: String, password: SecretBytes,
                                             preferredID: String? = nil) async throws(SecretServiceError)
        -> (id: String, created: Bool) {
        if !alias.isEmpty, let existing = await resolveAlias(alias) { return (existing, false) }
        let (kek, salt, parameters) = try await offTheCallersExecutor { () throws(SecretServiceError) in
            try newKeyEncryptionKey(for: password)
        }
        return try await installCollection(label: label, alias: alias, kek: kek, salt: salt, parameters: parameters,
                                           preferredID: preferredID)
    }

    /// A key-encryption key for a new password: a fresh salt and the store's current Argon2id cost. Slow by design;
    /// runs outside the actor.
    nonisolated func newKeyEncryptionKey(for password: SecretBytes) throws(SecretServiceError)
        -> (kek: SecretBytes, salt: [UInt8], parameters: Argon2idParameters) {
        let salt = SecureRandom.bytes(count: 16)
        do {
            return (try KeyWrapping.keyEncryptionKey(password: password, salt: salt, parameters: keyDerivation),
                    salt, keyDerivation)
        } catch {
            throw .failed("the password could not be processed")
        }
    }

    func installCollection(label: String, alias: String, kek: SecretBytes, salt: [UInt8],
                           parameters: Argon2idParameters, preferredID: String?) throws(SecretServiceError)
        -> (id: String, created: Bool) {
        try limits.check(label: label)
        if !alias.isEmpty {
            try Self.checkAliasName(alias)
            if let existing = resolveAlias(alias) { return (existing, false) }
        }
        guard let directory else { throw .failed("cofferd has no data directory for persistent collections") }
        try checkRoomForCollection()
        let base = preferredID ?? ObjectPathElement.derive(from: label, fallback: "collection")
        var id = base
        var counter = 1
        while collections[id] != nil || unavailable[id] != nil || POSIXFile.exists(path(of: id)!) {
            id = "\(base)_\(counter)"
            counter += 1
        }
        let now = clock.now()
        let path = path(of: id)!
        do {
            let keys = try CollectionKeys(master: CollectionKeys.newMaster(), collectionID: id)
            let slot = try KeySlotWrapping.seal(master: keys.master, kek: kek, id: 0, kind: .password,
                                                parameters: parameters, salt: salt, collectionID: id)
            let header = FileHeader(id: id, created: now, indexKey: SecureRandom.bytes(count: FileHeader.indexKeySize))
            let records: [FileRecord] = [slot.record, .collection(label: label, modified: now)]
            let (bytes, mac) = try Journal.encodeFile(header: header, records: records, firstSequence: 1,
                                                      key: keys.authentication)
            try lockDirectory()
            if ledger == nil { ledger = try GenerationLedger(directory: directory) }
            do {
                try POSIXFile.replace(path, with: bytes, directory: directory)
            } catch let error as DirectorySyncError {
                throw StorageError(message: "\(error)")
            }
            try ledger?.recordNow(id, UInt64(records.count))
            let file = CollectionFile(path: path, header: header, indexKey: try SecretBytes(copying: header.indexKey),
                                      slots: [slot],
                                      writer: JournalWriter(path: path, lastMAC: mac,
                                                                nextSequence: UInt64(records.count) + 1,
                                                                length: bytes.count),
                                      recordCount: records.count)
            let state = CollectionState(id: id, label: label, created: now, modified: now, indexKey: file.indexKey,
                                        vault: try SecretVault(key: keys.data, collectionID: id), file: file)
            state.keys = keys
            collections[id] = state
        } catch {
            throw .failed("the collection could not be created: \(error)")
        }
        markUnlocked(id)
        eventSink.yield(.collectionCreated(id))
        eventSink.yield(.collectionsListChanged)
        if !alias.isEmpty { try setAlias(alias, to: id) }
        return (id, true)
    }

    // MARK: - Unlocking

    /// Whether the collection is kept in a file and so needs its password to unlock.
    public func needsPassword(_ id: String) throws(SecretServiceError) -> Bool {
        try state(of: id).file != nil
    }

    /// Unlocks a persistent collection with its password, verifying the whole file on the way.
    /// - Returns: `false` when the password is wrong (nothing changes).
    /// - Throws: `noSuchObject` (also when the file fails verification: the collection is then taken out of service
    ///   and its file left untouched), `failed`.
    /// - Parameter announcing: whether to announce the change of every item (two events per item); a daemon that
    ///   unlocks before it serves anyone passes `false`, as no client can hold a proxy yet.
    public nonisolated func unlock(_ id: String, password: SecretBytes, announcing: Bool = true) async
        throws(SecretServiceError) -> Bool {
        let keys = try await slotKeys(of: id, secret: password, passwords: true)
        guard try await finishUnlockAfterCompaction(id, with: keys, announcing: announcing) else { return false }
        await enableConfiguredSync(of: id, password: password)
        return true
    }

    /// The key-encryption keys `secret` gives for each of the collection's password slots (`passwords`, Argon2id,
    /// run here outside the actor so other calls keep being served), or for each of its other slots (HKDF; a
    /// secret too short to be such a key gives none). Each comes with the slot it was made for.
    nonisolated func slotKeys(of id: String, secret: SecretBytes, passwords: Bool) async throws(SecretServiceError)
        -> [SlotKey] {
        let slots = try await keySlotRecords(of: id).filter { ($0.kind == .password) == passwords }
        if !passwords && secret.count < KeySlotWrapping.minimumKeyBytes { return [] }
        let derive = { () throws(SecretServiceError) -> [SlotKey] in
            do {
                return try slots.map { SlotKey(slot: $0, kek: try KeySlotWrapping.keyEncryptionKey(for: $0, secret: secret)) }
            } catch {
                throw .failed("the password could not be processed")
            }
        }
        return passwords ? try await offTheCallersExecutor(derive) : try derive()
    }

    /// Runs Argon2id work (slow by design) on the global concurrent executor, whatever executor the calling task
    /// prefers: cofferd runs its calls on the D-Bus loop thread, which a derivation must not stall.
    nonisolated func offTheCallersExecutor<T: Sendable>(_ body: () throws(SecretServiceError) -> T) async
        throws(SecretServiceError) -> T {
        try await withTaskExecutorPreference(globalConcurrentExecutor) { () async throws(SecretServiceError) -> T in
            try body()
        }
    }

    func keySlotRecords(of id: String) throws(SecretServiceError) -> [KeySlot] {
        guard let slots = try state(of: id).file?.slots else { throw .invalidArgs("the collection has no password") }
        return slots
    }

    /// The master key one of `keys` opens, with the slot it opened. A key made for a slot that has since been
    /// replaced (a password change meanwhile) is not tried: the slot it was made for is gone.
    func openMaster(_ id: String, with keys: [SlotKey]) throws(SecretServiceError) -> (slot: KeySlot, master: SecretBytes)? {
        let slots = try keySlotRecords(of: id)
        for key in keys where slots.contains(key.slot) {
            if let master = try KeySlotWrapping.open(key.slot, kek: key.kek, collectionID: id) {
                return (key.slot, master)
            }
        }
        return nil
    }

    /// ``finishUnlock(_:with:announcing:)`` once no compaction is replacing the file it reads.
    func finishUnlockAfterCompaction(_ id: String, with keys: [SlotKey], announcing: Bool) async
        throws(SecretServiceError) -> Bool {
        await waitForCompaction(of: id)
        guard try finishUnlock(id, with: keys, announcing: announcing) else { return false }
        await openSyncAfterUnlock(id)
        return true
    }

    func finishUnlock(_ id: String, with keys: [SlotKey], announcing: Bool = true) throws(SecretServiceError) -> Bool {
        let current = try state(of: id)
        guard let file = current.file else { return true }
        guard current.isLocked else { return true }
        guard !closed else { throw .failed("the store no longer uses its data directory") }
        guard let (slot, master) = try openMaster(id, with: keys) else { return false }
        hold(keys.first { $0.slot == slot }, of: id)
        do {
            let state = try verifiedState(of: id, path: file.path, master: master, locked: current)
            state.isLocked = false
            collections[id] = state
            markUnlocked(id)
            if announcing { announceLockChange(of: state, changed: [.locked, .label, .attributes, .modified]) }
            return true
        } catch let error as CryptoError where error == .secureMemoryExhausted {
            // Not the file's fault: it stays in service, and unlocking works again once memory is free.
            throw .failed("the collection could not be unlocked: \(error)")
        } catch {
            markUnavailable(id, reason: "\(error)")
            throw .noSuchObject("the collection's file failed verification and was taken out of service")
        }
    }

    /// Reads the file once, checks every record's MAC and the generation, and builds the collection from those same
    /// bytes. When they are the bytes `locked` was built from (the unlock after a start), `locked` is kept and only
    /// the chain is checked. Item metadata stays sealed until asked for.
    func verifiedState(of id: String, path: String, master: SecretBytes, locked: CollectionState) throws
        -> CollectionState {
        let keys = try CollectionKeys(master: master, collectionID: id)
        let vault = try SecretVault(key: keys.data, collectionID: id)
        guard let bytes = try POSIXFile.read(path) else { throw StorageError(message: "the file vanished") }
        let state: CollectionState
        let writer: JournalWriter
        if let image = locked.file?.loadedImage, image.matches(bytes, image: locked.image) {
            try checkGeneration(lastSequence: image.lastSequence, id: id)
            guard let lastMAC = try image.verifyChain(bytes, key: keys.authentication) else {
                throw FormatError("the file failed authentication: it was altered")
            }
            state = locked
            writer = JournalWriter(path: path, lastMAC: lastMAC, nextSequence: image.lastSequence + 1,
                                   length: image.validLength)
        } else {
            let parsed = try Journal.parse(bytes)
            guard let lastMAC = try Journal.verify(parsed, key: keys.authentication) else {
                throw FormatError("the file failed authentication: it was altered")
            }
            state = try loadLocked(parsed, path: path, expectedID: id)
            writer = JournalWriter(path: path, lastMAC: lastMAC, nextSequence: parsed.lastSequence + 1,
                                   length: parsed.validLength)
        }
        // Appends follow; the image no longer describes the file.
        state.file?.loadedImage = nil
        state.modifiedCountsItems = false
        state.vault = vault
        state.keys = keys
        state.file?.writer = writer
        return state
    }
}

// SPDX-License-Identifier: Apache-2.0
// Changing a collection's password: a new master key, every item sealed again, the file replaced whole.

public import SecretCrypto
public import SecretServiceProtocol

extension SecretStore {
    /// Changes the password of a persistent collection. The master key is replaced, not re-wrapped: a copy of the
    /// old file, or a wrap left behind, must not let the old password read anything written after the change.
    /// - Returns: `false` when `old` is wrong (nothing changes).
    /// - Throws: `failed` when the new file cannot be written (the old one, and the old password, stay in force).
    public nonisolated func changePassword(of id: String, from old: SecretBytes, to new: SecretBytes) async
        throws(SecretServiceError) -> Bool {
        let (_, oldKEK) = try await currentKeyEncryptionKey(of: id, password: old)
        let (newKEK, salt, parameters) = try await offTheCallersExecutor { () throws(SecretServiceError) in
            try newKeyEncryptionKey(for: new)
        }
        return try await finishPasswordChange(id, oldKEK: oldKEK, newKEK: newKEK, salt: salt, parameters: parameters)
    }

    func finishPasswordChange(_ id: String, oldKEK: SecretBytes, newKEK: SecretBytes, salt: [UInt8],
                              parameters: Argon2idParameters) async throws(SecretServiceError) -> Bool {
        await waitForCompaction(of: id)
        let wasLocked = try state(of: id).isLocked
        // Check the old password against the wrap itself: an unlocked collection would not ask for it otherwise.
        guard try KeyWrapping.unwrap(try keyWrap(of: id), kek: oldKEK, collectionID: id) != nil,
              try finishUnlock(id, kek: oldKEK)
        else { return false }
        try rekey(try state(of: id), kek: newKEK, salt: salt, parameters: parameters)
        if wasLocked { try setLocked(id, true) }
        return true
    }

    /// Seals every item of an unlocked collection under a fresh master key (and tags its attributes with a fresh
    /// index key), writes the whole file anew with only the new wrap, replaces the old one atomically, and only then
    /// switches memory over. A crash leaves the old file (old password) or the new one (new password), never
    /// neither; sequence numbers continue, so the generation only grows.
    func rekey(_ state: CollectionState, kek: SecretBytes, salt: [UInt8], parameters: Argon2idParameters)
        throws(SecretServiceError) {
        guard let file = state.file, let oldVault = state.vault, let writer = file.writer, let directory else {
            throw .isLocked("the collection is locked")
        }
        let id = state.id
        let keys: CollectionKeys
        let vault: SecretVault
        let header: FileHeader
        let indexKey: SecretBytes
        var items: [StoredItem] = []
        let encoded: (bytes: [UInt8], mac: [UInt8])
        let wrap: KeyWrap
        let lastSequence: UInt64
        var records: [FileRecord] = []
        do {
            keys = try CollectionKeys(master: CollectionKeys.newMaster(), collectionID: id)
            vault = try SecretVault(key: keys.data, collectionID: id)
            wrap = try KeyWrapping.wrap(master: keys.master, kek: kek, collectionID: id, parameters: parameters,
                                        salt: salt)
            header = FileHeader(id: id, created: file.header.created,
                                indexKey: SecureRandom.bytes(count: FileHeader.indexKeySize))
            indexKey = try SecretBytes(copying: header.indexKey)
            state.foldItemTimes()
            records = [.keyWrap(wrap), .collection(label: state.label, modified: state.modified)]
            for old in state.items.values.sorted(by: { $0.sequence < $1.sequence }) {
                let meta = try oldVault.openMeta(old.sealed.meta(in: state.image), item: old.id)
                let tags = try AttributeTags.tags(for: meta.attributes, indexKey: indexKey)
                let sealedMeta = try vault.sealMeta(meta, item: old.id)
                let sealedSecret = try vault.sealSecret(try oldVault.openSecret(old.sealed.secret(in: state.image),
                                                                                item: old.id), item: old.id)
                var item = old
                item.sealed = SealedItem(tags: tags, meta: sealedMeta, secret: sealedSecret)
                records.append(.item(ItemRecord(id: item.id, sequence: item.sequence, tags: tags.map(\.bytes),
                                                meta: sealedMeta, secret: sealedSecret)))
                items.append(item)
            }
            lastSequence = writer.nextSequence + UInt64(records.count) - 1
            encoded = try Journal.encodeFile(header: header, records: records, firstSequence: writer.nextSequence,
                                             key: keys.authentication)
        } catch {
            throw .failed("the new password could not be applied: \(error)")
        }
        var syncProblem: String?
        do {
            try POSIXFile.replace(file.path, with: encoded.bytes, directory: directory)
        } catch let error as DirectorySyncError {
            syncProblem = "\(error)"  // the new file is in place; memory must follow it
        } catch {
            throw .failed("the new password could not be saved: \(error)")
        }
        do {
            try ledger?.recordNow(id, lastSequence)
        } catch {
            // The keys in memory no longer open the file on disk: lock, so the next unlock (with the new password)
            // reads and verifies what is there.
            _ = try? setLocked(id, true)
            throw .failed("the new password is in place but its generation could not be recorded: \(error)")
        }
        // The new tags are keyed by the new index key: the old postings go before the new ones come in.
        for item in items { _ = state.remove(item.id) }
        state.indexKey = indexKey
        for item in items { state.insert(item) }
        state.vault = vault
        state.keys = keys
        state.file = CollectionFile(path: file.path, header: header, indexKey: indexKey,
                                    keyWrap: wrap,
                                    writer: JournalWriter(path: file.path, lastMAC: encoded.mac,
                                                          nextSequence: lastSequence + 1, length: encoded.bytes.count),
                                    recordCount: records.count)
        collections[id] = state
        if let syncProblem {
            throw .failed("the new password is in place but may not survive a crash: \(syncProblem)")
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Changing a collection's password, and rewriting its key slots: a new master key where every slot can follow it.

import Logging
public import SecretCrypto
public import SecretServiceProtocol

/// What a password change, or the removal of a key slot, did to the master key.
public enum KeyChangeOutcome: Sendable, Equatable {
    /// The current password was wrong; nothing changed.
    case refused
    /// A new master key: every item sealed again, every slot wrapped anew. A copy of the old file opens nothing
    /// written from now on.
    case rekeyed
    /// The password slot was replaced but the master key kept, because these other slots' keys were not at hand
    /// and re-keying would have shut them out. A copy of the file taken before the change still opens, with the old
    /// password, what is written later; removing those slots (or unlocking with them) lets the next change re-key.
    case masterKeyKept(unchangedSlots: [KeySlotInfo])
}

/// A master key to replace `old` with, that the access log was told of (``SecretStore/rewritingSlots(of:_:)``).
struct AnnouncedMaster {
    var old: SecretBytes
    var new: SecretBytes
}

/// What an attempt to rewrite a collection's key slots came to: done, or a new master key to announce first.
enum SlotRewrite<Outcome> {
    case finished(Outcome)
    case announce(AnnouncedMaster)
}

/// A slot of the file about to be written: an existing slot kept as it is (`kek` is `nil`), or one to be sealed
/// with `kek` (its number, kind, salt and cost come from `slot`).
struct PlannedSlot {
    var slot: KeySlot
    var kek: SecretBytes?
}

extension SecretStore {
    /// Changes the password of a persistent collection (the password slot `old` opens); `false` when `old` is wrong.
    /// See ``passwordChange(of:from:to:)``.
    public nonisolated func changePassword(of id: String, from old: SecretBytes, to new: SecretBytes) async
        throws(SecretServiceError) -> Bool {
        try await passwordChange(of: id, from: old, to: new) != .refused
    }

    /// Changes the password slot that `old` opens to `new`. The master key is replaced, not re-wrapped, whenever every
    /// other slot can be wrapped again (its key is at hand: a systemd credential cofferd unlocked with or added this
    /// run): a copy of the old file, or a wrap left behind, must not let the old password read anything written
    /// after the change. Otherwise the master key is kept rather than shut those slots out (a recovery key on paper
    /// must keep working), and the outcome names them.
    /// - Throws: `failed` when the new file cannot be written (the old one, and the old password, stay in force).
    public nonisolated func passwordChange(of id: String, from old: SecretBytes, to new: SecretBytes) async
        throws(SecretServiceError) -> KeyChangeOutcome {
        let oldKeys = try await slotKeys(of: id, secret: old, passwords: true)
        let (newKEK, salt, parameters) = try await offTheCallersExecutor { () throws(SecretServiceError) in
            try newKeyEncryptionKey(for: new)
        }
        let (outcome, wrap) = try await finishPasswordChange(id, oldKeys: oldKeys, newKEK: newKEK, salt: salt,
                                                             parameters: parameters)
        // A synchronized collection's wrap in the folder follows, so a machine joining later uses the new password.
        if let wrap { await rewriteSyncWrap(wrap, password: new) }
        return outcome
    }

    /// - Returns: the outcome, and the sync folder's wrap to make anew with the new password (taken while the
    ///   collection is unlocked).
    func finishPasswordChange(_ id: String, oldKeys: [SlotKey], newKEK: SecretBytes, salt: [UInt8],
                              parameters: Argon2idParameters) async throws(SecretServiceError)
        -> (KeyChangeOutcome, SyncWrapTarget?) {
        let (outcome, wrap) = try await rewritingSlots(of: id) { announced throws(SecretServiceError) in
            try await attemptPasswordChange(id, oldKeys: oldKeys, newKEK: newKEK, salt: salt, parameters: parameters,
                                            announced: announced)
        }
        if case .masterKeyKept(let slots) = outcome {
            // Whatever asked for the change (PAM, Seahorse, the CLI) may have no way to say so; the log must.
            logger.notice("password changed; the master key was kept for key slots whose keys cofferd does not hold",
                          metadata: ["secret.collection": "\(id)",
                                     "slots": "\(slots.map { "\($0.id) \($0.kind.name)" })"])
        }
        return (outcome, wrap)
    }

    private func attemptPasswordChange(_ id: String, oldKeys: [SlotKey], newKEK: SecretBytes, salt: [UInt8],
                                       parameters: Argon2idParameters, announced: AnnouncedMaster?) async
        throws(SecretServiceError) -> SlotRewrite<(KeyChangeOutcome, SyncWrapTarget?)> {
        await waitForCompaction(of: id)
        let wasLocked = try state(of: id).isLocked
        // Also when writing fails: a password change must not leave a locked collection open.
        defer { if wasLocked { _ = try? setLocked(id, true) } }
        // Check the old password against the slots themselves: an unlocked collection would not ask for it otherwise.
        guard let (changed, _) = try openMaster(id, with: oldKeys), try finishUnlock(id, with: oldKeys) else {
            return .finished((.refused, nil))
        }
        var plan = try keySlotRecords(of: id).filter { $0.id != changed.id }.map { plannedSlot($0, of: id) }
        plan.append(PlannedSlot(slot: KeySlot(id: changed.id, kind: .password, parameters: parameters, salt: salt,
                                              nonce: [], wrappedKey: []),
                                kek: newKEK))
        switch try rewriteSlots(of: try state(of: id), plan, announced: announced) {
        case .finished(let outcome): return .finished((outcome, syncWrapTarget(of: id)))
        case .announce(let master): return .announce(master)
        }
    }

    /// `slot` as planned for a rewrite: with its key when one is held, else kept as it is.
    func plannedSlot(_ slot: KeySlot, of id: String, authorizedBy key: SlotKey? = nil) -> PlannedSlot {
        if let key, key.slot == slot { return PlannedSlot(slot: slot, kek: key.kek) }
        if let held = heldSlotKeys[id]?[slot.id], held.slot == slot { return PlannedSlot(slot: slot, kek: held.kek) }
        return PlannedSlot(slot: slot, kek: nil)
    }

    /// Remembers a systemd credential's key-encryption key (see ``heldSlotKeys``); other kinds are never kept.
    func hold(_ key: SlotKey?, of id: String) {
        guard let key, key.slot.kind == .systemdCredential else { return }
        heldSlotKeys[id, default: [:]][key.slot.id] = key
    }

    /// Runs `attempt` (which waits for compaction, checks its authorization and plans the slots, then calls
    /// ``rewriteSlots(of:_:announced:)`` in the same turn of the actor) until it finishes. When it would replace the
    /// master key before the access log heard of it, the change is announced
    /// (``announceAccessLogKeyChange(of:from:to:)``) and `attempt` runs again with it: the store takes other calls
    /// while the log writes, so everything is checked and planned anew, and the announced key is used only if the
    /// master key is still the one it replaces.
    func rewritingSlots<Outcome>(of id: String,
                                 _ attempt: (AnnouncedMaster?) async throws(SecretServiceError) -> SlotRewrite<Outcome>)
        async throws(SecretServiceError) -> Outcome {
        var announced: AnnouncedMaster?
        // Another re-key between an announcement and the rewrite makes a new announcement; a few in a row mean the
        // key is being changed in a loop, and this change gives way.
        for _ in 0..<3 {
            switch try await attempt(announced) {
            case .finished(let outcome):
                return outcome
            case .announce(let master):
                try await announceAccessLogKeyChange(of: id, from: master.old, to: master.new)
                announced = master
            }
        }
        throw .failed("the collection's master key kept changing while it was being replaced; try again")
    }

    /// Writes the collection's file anew holding exactly the planned slots. When every planned slot has its key the
    /// master key is replaced too (every item sealed again); otherwise the master key stays and only the slots with
    /// a key are sealed again. The unlocked collection must be unlocked. A new master key is used only once the
    /// access log holds the change (`announced` replacing the current key); otherwise nothing is written and the
    /// change to announce is returned (see ``rewritingSlots(of:_:)``).
    func rewriteSlots(of state: CollectionState, _ plan: [PlannedSlot], announced: AnnouncedMaster?)
        throws(SecretServiceError) -> SlotRewrite<KeyChangeOutcome> {
        guard let current = state.keys else { throw .isLocked("the collection is locked") }
        let rekey = plan.allSatisfy { $0.kek != nil }
        let keys: CollectionKeys
        var slots: [KeySlot] = []
        do {
            if !rekey {
                keys = current
            } else if let announced, announced.old.constantTimeEquals(current.master) {
                keys = try CollectionKeys(master: announced.new, collectionID: state.id)
            } else if accessLogKeyChange != nil {
                return .announce(AnnouncedMaster(old: current.master, new: try CollectionKeys.newMaster()))
            } else {
                keys = try CollectionKeys(master: CollectionKeys.newMaster(), collectionID: state.id)
            }
            for planned in plan {
                guard let kek = planned.kek else {
                    slots.append(planned.slot)
                    continue
                }
                let slot = planned.slot
                slots.append(try KeySlotWrapping.seal(master: keys.master, kek: kek, id: slot.id, kind: slot.kind,
                                                      parameters: slot.parameters, salt: slot.salt,
                                                      collectionID: state.id))
            }
        } catch {
            throw .failed("the new keys could not be made: \(error)")
        }
        if rekey {
            // Before the new file can be in place, a sync state that opens with it is (see openSyncState).
            try prepareSyncStateRekey(of: state.id, from: current.master, to: keys.master)
            do {
                try replaceFile(of: state, keys: keys, resealing: true, slots: slots.sorted { $0.id < $1.id })
            } catch {
                settleSyncStateRekey(of: state.id)  // the file may be the old one or the new one
                throw error
            }
            settleSyncStateRekey(of: state.id)
        } else {
            try replaceFile(of: state, keys: keys, resealing: false, slots: slots.sorted { $0.id < $1.id })
        }
        heldSlotKeys[state.id] = nil
        for (planned, slot) in zip(plan, slots) { hold(planned.kek.map { SlotKey(slot: slot, kek: $0) }, of: state.id) }
        let unchanged = plan.filter { $0.kek == nil }.map(\.slot.info)
        return .finished(rekey ? .rekeyed : .masterKeyKept(unchangedSlots: unchanged))
    }

    /// Writes the whole file anew with `slots`, replaces the old one atomically, and only then switches memory over.
    /// With `resealing`, `keys` are new: every item is sealed again under them and its attributes tagged with a fresh
    /// index key. A crash leaves the old file or the new one, never neither; sequence numbers continue, so the
    /// generation only grows.
    func replaceFile(of state: CollectionState, keys: CollectionKeys, resealing: Bool, slots: [KeySlot])
        throws(SecretServiceError) {
        guard let file = state.file, let oldVault = state.vault, let writer = file.writer, let directory else {
            throw .isLocked("the collection is locked")
        }
        let id = state.id
        let vault: SecretVault
        let header: FileHeader
        let indexKey: SecretBytes
        var items: [StoredItem] = []
        let encoded: (bytes: [UInt8], mac: [UInt8])
        let lastSequence: UInt64
        var records: [FileRecord] = []
        var sealedAccess: SealedBlob?
        do {
            vault = resealing ? try SecretVault(key: keys.data, collectionID: id) : oldVault
            header = resealing ? FileHeader(id: id, created: file.header.created,
                                            indexKey: SecureRandom.bytes(count: FileHeader.indexKeySize))
                : file.header
            indexKey = resealing ? try SecretBytes(copying: header.indexKey) : file.indexKey
            state.foldItemTimes()
            records = slots.map(\.record) + [.collection(label: state.label, modified: state.modified)]
            if let access = state.sealedAccess {
                let kept = resealing ? try vault.sealCollectionAccess(try oldVault.openCollectionAccess(access))
                    : access
                sealedAccess = kept
                records.append(.collectionAccess(kept))
            }
            for old in state.items.values.sorted(by: { $0.sequence < $1.sequence }) {
                var item = old
                if resealing {
                    let meta = try oldVault.openMeta(old.sealed.meta(in: state.image), item: old.id)
                    let tags = try AttributeTags.tags(for: meta.attributes, indexKey: indexKey)
                    let sealedMeta = try vault.sealMeta(meta, item: old.id)
                    let sealedSecret = try vault.sealSecret(
                        try oldVault.openSecret(old.sealed.secret(in: state.image), item: old.id), item: old.id)
                    item.sealed = SealedItem(tags: tags, meta: sealedMeta, secret: sealedSecret)
                }
                records.append(.item(state.record(of: item)))
                items.append(item)
            }
            lastSequence = writer.nextSequence + UInt64(records.count) - 1
            encoded = try Journal.encodeFile(header: header, records: records, firstSequence: writer.nextSequence,
                                             key: keys.authentication)
        } catch {
            throw .failed("the new keys could not be applied: \(error)")
        }
        var syncProblem: String?
        do {
            try POSIXFile.replace(file.path, with: encoded.bytes, directory: directory)
        } catch let error as DirectorySyncError {
            syncProblem = "\(error)"  // the new file is in place; memory must follow it
        } catch {
            throw .failed("the new keys could not be saved: \(error)")
        }
        do {
            try ledger?.recordNow(id, lastSequence)
        } catch {
            // The keys in memory may no longer open the file on disk: lock, so the next unlock reads and verifies
            // what is there.
            _ = try? setLocked(id, true)
            throw .failed("the new keys are in place but their generation could not be recorded: \(error)")
        }
        // The new tags are keyed by the new index key: the old postings go before the new ones come in.
        for item in items { _ = state.remove(item.id) }
        state.indexKey = indexKey
        for item in items { state.insert(item) }
        state.vault = vault
        state.keys = keys
        state.sealedAccess = sealedAccess
        state.file = CollectionFile(path: file.path, header: header, indexKey: indexKey, slots: slots,
                                    writer: JournalWriter(path: file.path, lastMAC: encoded.mac,
                                                          nextSequence: lastSequence + 1, length: encoded.bytes.count),
                                    recordCount: records.count)
        collections[id] = state
        if let syncProblem {
            throw .failed("the new keys are in place but may not survive a crash: \(syncProblem)")
        }
    }
}

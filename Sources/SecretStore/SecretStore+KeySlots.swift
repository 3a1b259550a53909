// SPDX-License-Identifier: Apache-2.0
// Key slots of persistent collections: list them, unlock with a slot key, add and remove slots.

public import SecretCrypto
public import SecretServiceProtocol

extension SecretStore {
    /// The collection's key slots, by number.
    /// - Throws: `noSuchObject`; `invalidArgs` for a collection kept in memory (it has no keys).
    public func keySlots(of id: String) throws(SecretServiceError) -> [KeySlotInfo] {
        try keySlotRecords(of: id).map(\.info)
    }

    /// Unlocks a persistent collection with the key of one of its non-password slots (a systemd credential or a
    /// recovery key), verifying the whole file on the way. No key derivation is involved: these keys are random.
    /// - Returns: `false` when the key opens no slot (nothing changes).
    /// - Throws: as ``unlock(_:password:announcing:)``.
    public nonisolated func unlock(_ id: String, slotKey: SecretBytes, announcing: Bool = true) async
        throws(SecretServiceError) -> Bool {
        let keys = try await slotKeys(of: id, secret: slotKey, passwords: false)
        return try await finishUnlockAfterCompaction(id, with: keys, announcing: announcing)
    }

    /// Whether `key` opens one of the collection's non-password slots, whatever its lock state; nothing changes.
    /// Lets a user check a recovery key kept on paper.
    public nonisolated func checkSlotKey(of id: String, _ key: SecretBytes) async throws(SecretServiceError) -> Bool {
        let keys = try await slotKeys(of: id, secret: key, passwords: false)
        return try await openMaster(id, with: keys) != nil
    }

    /// The keys `secret` gives for the slots it could open: the non-password slots (cheap) first, the password
    /// slots (Argon2id) only when none of those opens.
    nonisolated func anySlotKeys(of id: String, secret: SecretBytes) async throws(SecretServiceError) -> [SlotKey] {
        let keys = try await slotKeys(of: id, secret: secret, passwords: false)
        if try await openMaster(id, with: keys) != nil { return keys }
        return try await slotKeys(of: id, secret: secret, passwords: true)
    }

    /// Adds a slot of `kind` opened by `secret` (a password, or a random key of at least 16 bytes for the other
    /// kinds). Like `cryptsetup luksAddKey`, it takes a secret that opens an existing slot, `current`: being able to
    /// talk to cofferd while the collection is unlocked must not be enough to leave a key behind. The collection
    /// keeps its lock state.
    /// - Returns: the new slot's number, or `nil` when `current` opens no slot (nothing changes).
    /// - Throws: `invalidArgs` for a key too short; `limitsExceeded` when the collection has as many slots as
    ///   allowed; `noSuchObject`; `failed` when the record cannot be written.
    public nonisolated func addKeySlot(to id: String, authorizedBy current: SecretBytes, kind: KeySlotKind,
                                       secret: SecretBytes) async throws(SecretServiceError) -> UInt32? {
        if kind != .password && secret.count < KeySlotWrapping.minimumKeyBytes {
            throw .invalidArgs("a \(kind.name) key must be at least \(KeySlotWrapping.minimumKeyBytes) random bytes")
        }
        let authorizing = try await anySlotKeys(of: id, secret: current)
        let template: PlannedSlot
        if kind == .password {
            let (kek, salt, parameters) = try await offTheCallersExecutor { () throws(SecretServiceError) in
                try newKeyEncryptionKey(for: secret)
            }
            template = PlannedSlot(slot: KeySlot(id: 0, kind: kind, parameters: parameters, salt: salt, nonce: [],
                                                 wrappedKey: []), kek: kek)
        } else {
            let salt = SecureRandom.bytes(count: KeySlot.saltSize)
            let slot = KeySlot(id: 0, kind: kind, parameters: nil, salt: salt, nonce: [], wrappedKey: [])
            do {
                template = PlannedSlot(slot: slot, kek: try KeySlotWrapping.keyEncryptionKey(for: slot, secret: secret))
            } catch {
                throw .failed("the key could not be processed")
            }
        }
        return try await finishAddingKeySlot(to: id, authorizing: authorizing, template: template)
    }

    func finishAddingKeySlot(to id: String, authorizing: [SlotKey], template: PlannedSlot) async
        throws(SecretServiceError) -> UInt32? {
        await waitForCompaction(of: id)
        let wasLocked = try state(of: id).isLocked
        // Also when writing fails: adding a slot must not leave a locked collection open.
        defer { if wasLocked { _ = try? setLocked(id, true) } }
        guard try openMaster(id, with: authorizing) != nil, try finishUnlock(id, with: authorizing) else { return nil }
        let state = try state(of: id)
        guard let slots = state.file?.slots, let keys = state.keys, let kek = template.kek else {
            throw .isLocked("the collection is locked")
        }
        guard slots.count < KeySlot.maximumCount,
              template.slot.kind != .password
                || slots.count(where: { $0.kind == .password }) < KeySlot.maximumPasswordSlots
        else {
            throw .limitsExceeded("the collection has as many key slots as allowed (\(KeySlot.maximumCount), "
                + "at most \(KeySlot.maximumPasswordSlots) of them passwords)")
        }
        let number = (slots.map(\.id).max() ?? 0) + 1
        let slot: KeySlot
        do {
            slot = try KeySlotWrapping.seal(master: keys.master, kek: kek, id: number, kind: template.slot.kind,
                                            parameters: template.slot.parameters, salt: template.slot.salt,
                                            collectionID: id)
        } catch {
            throw .failed("the key slot could not be made: \(error)")
        }
        let pending = try persist(slot.record, in: state)
        state.file?.slots.append(slot)
        hold(SlotKey(slot: slot, kek: kek), of: id)
        try await settle(pending)
        return number
    }

    /// Removes slot `slot`, authorized as ``addKeySlot(to:authorizedBy:kind:secret:)`` is. The file is written anew
    /// without it, so the current file no longer holds its wrap; the master key is replaced too when every remaining
    /// slot's key is at hand (see ``KeyChangeOutcome``). The last slot is never removed: nothing could open the
    /// collection after it.
    /// - Returns: what happened to the master key; ``KeyChangeOutcome/refused`` when `current` opens no slot.
    /// - Throws: `noSuchObject` for an unknown slot; `notSupported` for the last one; `failed`.
    public nonisolated func removeKeySlot(_ slot: UInt32, from id: String, authorizedBy current: SecretBytes) async
        throws(SecretServiceError) -> KeyChangeOutcome {
        let authorizing = try await anySlotKeys(of: id, secret: current)
        return try await finishRemovingKeySlot(slot, from: id, authorizing: authorizing)
    }

    /// Waits for a compaction to end and then rewrites the file in the same turn of the actor, so no compaction can
    /// start in between and later install a writer for the file this one replaces.
    func finishRemovingKeySlot(_ number: UInt32, from id: String, authorizing: [SlotKey]) async
        throws(SecretServiceError) -> KeyChangeOutcome {
        try await rewritingSlots(of: id) { announced throws(SecretServiceError) in
            try await attemptRemovingKeySlot(number, from: id, authorizing: authorizing, announced: announced)
        }
    }

    private func attemptRemovingKeySlot(_ number: UInt32, from id: String, authorizing: [SlotKey],
                                        announced: AnnouncedMaster?) async
        throws(SecretServiceError) -> SlotRewrite<KeyChangeOutcome> {
        await waitForCompaction(of: id)
        let slots = try keySlotRecords(of: id)
        guard slots.contains(where: { $0.id == number }) else { throw .noSuchObject("the collection has no key slot \(number)") }
        guard slots.count > 1 else {
            throw .notSupported("slot \(number) is the collection's last key slot; nothing could unlock it without it")
        }
        let wasLocked = try state(of: id).isLocked
        defer { if wasLocked { _ = try? setLocked(id, true) } }
        guard let (opened, _) = try openMaster(id, with: authorizing), try finishUnlock(id, with: authorizing) else {
            return .finished(.refused)
        }
        let key = authorizing.first { $0.slot == opened }
        let plan = slots.filter { $0.id != number }.map { plannedSlot($0, of: id, authorizedBy: key) }
        return try rewriteSlots(of: try state(of: id), plan, announced: announced)
    }
}

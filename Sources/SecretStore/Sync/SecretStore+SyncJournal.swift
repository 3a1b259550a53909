// SPDX-License-Identifier: Apache-2.0
// Writing each local change of a synchronized collection to this device's journal, durable with the collection file
// before the change is acknowledged (docs/SYNC.md, "Writing each change").

#if canImport(Glibc)
import Glibc
#endif
import CollectionSync
import Logging
import SecretCrypto
import SecretServiceProtocol

extension SecretStore {
    // MARK: - Local changes

    /// Gives `meta` a synchronized id when its collection is synchronized and it has none.
    /// A new item's synchronized id: unique, not secret, so from libgcrypt's nonce generator, which does not stir
    /// the entropy pool on every call as the strong one does (one per created item).
    static func newSyncItemID() -> [UInt8] {
        SecureRandom.nonce(count: SyncIdentifier.byteCount)
    }

    /// A local change: the item no longer holds a merged change.
    func prepareForSync(_ meta: inout ItemMeta, link: SyncLink?) {
        guard link != nil else { return }
        if meta.syncItem == nil { meta.syncItem = Self.newSyncItemID() }
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
        logger.error("a change could not be written to the sync journal",
                     metadata: ["secret.collection": "\(collection)", "error": "\(error)"])
        return JournalWrite(failure: "\(error)")
    }

    /// What a journal append left to wait for.
    struct JournalWrite {
        var descriptor: Int32 = -1
        var failure: String?
    }

    /// ``settle(_:)`` for the collection's file and the journal together; the change is acknowledged when both are
    /// durable. The journal's sync does not wait for the collection file's, nor the file's generation for the
    /// journal: it runs beside both on another lane of the sync thread, so a synchronized change waits for about as
    /// long as a local one. Their order does not matter: a crash between them is caught up at the next opening.
    func settle(_ pending: PendingWrite?, journal: JournalWrite?, of collection: String) async
        throws(SecretServiceError) {
        guard let journal else { return try await settle(pending) }
        if let failure = journal.failure {
            try await settle(pending)
            throw .failed("the change was saved here but not in the sync folder: \(failure)")
        }
        let journalSync = syncer.begin([journal.descriptor])
        do {
            try await settle(pending)
        } catch {
            // The collection file's error is the one to report; the journal's sync still ends before the reply.
            _ = await journalSync.answers()
            throw error
        }
        try checkJournalSync(await journalSync.answers().first ?? 0, of: collection)
        compactSyncJournalIfWorthwhile(of: collection)
    }

    /// Settles many writes to one collection file (merging, catching up) with one sync: syncing the file covers
    /// every record appended before, so only the last write's descriptor is synced and its generation recorded.
    func settleAll(_ pending: [PendingWrite]) async throws(SecretServiceError) {
        guard let last = pending.last else { return }
        for write in pending.dropLast() { _ = Glibc.close(write.handle) }
        try await settle(last)
    }

    func settleJournal(_ descriptor: Int32, of collection: String) async throws(SecretServiceError) {
        try checkJournalSync(await syncer.sync(descriptor), of: collection)
    }

    private func checkJournalSync(_ result: Int32, of collection: String) throws(SecretServiceError) {
        guard result != 0 else { return }
        // What the journal holds is unknown now: reopening verifies it and writes again what it lacks.
        syncLinks[collection] = nil
        let reason = "\(StorageError("cannot sync", "the sync journal", errno: result))"
        throw .failed("the change was saved here but not in the sync folder: \(reason)")
    }

    /// Forgets a deleted collection's link and state (the folder keeps the journals: other devices still read them).
    func forgetSync(of id: String) {
        syncLinks[id] = nil
        for path in [syncStatePath(of: id), syncStateNextPath(of: id), syncFollowersPath(of: id)].compactMap({ $0 }) {
            unlink(path)
        }
    }
}

extension SyncItemContent {
    init(meta: ItemMeta, secret: SecretBytes) {
        self.init(label: meta.label, attributes: meta.attributes, contentType: meta.contentType, secret: secret,
                  created: meta.created, modified: meta.modified)
    }
}

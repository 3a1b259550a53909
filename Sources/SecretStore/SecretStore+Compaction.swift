// SPDX-License-Identifier: Apache-2.0
// Compaction: a collection's file rewritten with only its live records, off the thread that serves clients.

import SecretCrypto

extension SecretStore {
    /// Starts rewriting the file with only its live records once superseded ones dominate, so a file's size tracks
    /// its contents; one full write, amortised over at least as many appends. Called right after a change reached
    /// memory, so the snapshot holds it.
    ///
    /// The encoding and the write (temporary file, `fsync`, rename, directory `fsync`) run off the store's thread:
    /// at 10,000 items they take long enough to stall every lookup. Meanwhile the collection is *compacting*: its
    /// lookups are served, and whatever would write to the file, or open it anew (changes, unlock, password change,
    /// delete), waits in ``waitForCompaction(of:)`` until the new file and its writer are in place.
    func compactIfWorthwhile(_ id: String) {
        guard !closed, let state = collections[id], !state.isCompacting, let file = state.file,
              let keys = state.keys, let writer = file.writer, let directory else { return }
        let live = state.items.count + file.slots.count + (state.sealedAccess == nil ? 1 : 2)
        guard file.recordCount > 256, file.recordCount > 2 * live else { return }
        // The collection record carries the collection's time; the items' own times count in it, as on a restart
        // the file would otherwise say less than what clients saw.
        state.foldItemTimes()
        var records: [FileRecord] = file.slots.map(\.record) + [.collection(label: state.label, modified: state.modified)]
        if let access = state.sealedAccess { records.append(.collectionAccess(access)) }
        for item in state.items.values.sorted(by: { $0.sequence < $1.sequence }) {
            records.append(.item(state.record(of: item)))
        }
        state.isCompacting = true
        let snapshot = CompactionSnapshot(path: file.path, directory: directory, header: file.header,
                                          records: records, firstSequence: writer.nextSequence,
                                          key: keys.authentication)
        Task { await self.compact(state, snapshot) }
    }

    /// Whether `id`'s file is being rewritten right now.
    func collectionIsCompacting(_ id: String) -> Bool { collections[id]?.isCompacting ?? false }

    /// Suspends while `id` is being compacted.
    func waitForCompaction(of id: String) async {
        while let state = collections[id], state.isCompacting {
            await withCheckedContinuation { state.compactionWaiters.append($0) }
        }
    }

    private func compact(_ state: CollectionState, _ snapshot: CompactionSnapshot) async {
        defer {
            state.isCompacting = false
            let waiters = state.compactionWaiters
            state.compactionWaiters = []
            for waiter in waiters { waiter.resume() }
        }
        guard let encoded = await snapshot.encoded() else { return }
        switch await syncer.replace(snapshot.path, with: encoded.bytes, directory: snapshot.directory) {
        case .failed:
            return  // the old file is untouched and its writer still valid; compaction is retried on a later write
        case .replaced, .replacedUnsynced:
            break  // the compacted file is in place; continue with it
        }
        let last = snapshot.firstSequence + UInt64(snapshot.records.count) - 1
        do {
            if let handle = try ledger?.record(state.id, last) {
                let result = await syncer.sync(handle)
                guard result == 0 else { throw StorageError("cannot sync", "generations", errno: result) }
            }
        } catch {
            // Without a writer for the new file no further change may be accepted: lock, so the next unlock
            // re-reads and verifies what is on disk.
            if collections[state.id] === state { _ = try? setLocked(state.id, true) }
            return
        }
        // Locked meanwhile: the next unlock reads the new file and opens its own writer.
        guard collections[state.id] === state, !state.isLocked, state.file != nil, !closed else { return }
        state.file?.writer = JournalWriter(path: snapshot.path, lastMAC: encoded.mac, nextSequence: last + 1,
                                           length: encoded.bytes.count)
        state.file?.recordCount = snapshot.records.count
    }
}

/// What a compaction writes: the live records of one moment, with the key that chains them.
struct CompactionSnapshot: Sendable {
    let path: String
    let directory: String
    let header: FileHeader
    let records: [FileRecord]
    let firstSequence: UInt64
    let key: SecretBytes

    /// The new file's bytes and last MAC, computed off the store's thread (HMACs over the whole file).
    nonisolated func encoded() async -> (bytes: [UInt8], mac: [UInt8])? {
        await withTaskExecutorPreference(globalConcurrentExecutor) {
            try? Journal.encodeFile(header: header, records: records, firstSequence: firstSequence, key: key)
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Merging other devices' journals into a synchronized collection (docs/SYNC.md, "The merge rule").

import CollectionSync
import Logging
import SecretCrypto
import SecretServiceProtocol

extension SecretStore {
    /// Reads what is new in the other devices' journals of an unlocked synchronized collection and merges it, with
    /// the usual item signals. A locked collection is left alone: its journals are read at its next unlock. What
    /// cannot be read now (a file mid-copy, an I/O error) is read next time; a damaged journal is set aside, logged,
    /// and changes nothing here.
    public func mergeSyncArrivals(of id: String) async {
        guard let state = collections[id], !state.isLocked, let link = try? await syncLink(for: id),
              collections[id] === state, !state.isLocked
        else { return }
        var pending: [PendingWrite] = []
        do {
            try mergeArrivals(through: link, into: state, pending: &pending)
        } catch {
            // Memory and the merged state may disagree now: the next opening rebuilds both from the files.
            syncLinks[id] = nil
            logger.error("merging other devices' changes failed", metadata: ["secret.collection": "\(id)",
                                                                            "error": "\(error)"])
        }
        do {
            try await settleAll(pending)
        } catch {
            logger.error("a merged change could not be saved", metadata: ["secret.collection": "\(id)",
                                                                          "error": "\(error)"])
            return
        }
        await saveFollowers(of: id, link: link)
    }

    /// The followers saved at the last merge, each brought back to where it stood: the part of each journal merged
    /// before is verified again from the file and merged into `link` (it is what the local collection already
    /// holds), so that catching up tells local changes from merged ones. A journal whose file no longer holds what
    /// was verified keeps its saved follower, whose next read finds out why.
    func resumeFollowers(of id: String, link: SyncLink) throws -> [DeviceID: JournalFollower] {
        let folder = link.state.syncFolder
        guard let path = syncFollowersPath(of: id), let bytes = try POSIXFile.read(path, limit: 1 << 24) else {
            return [:]
        }
        var followers: [DeviceID: JournalFollower] = [:]
        for (device, saved) in try SyncFollowersFile.decode(bytes, folder: folder) {
            followers[device] = saved
            guard let checkpoint = saved.checkpoint,
                  let journal = try? POSIXFile.read(saved.path), journal.count >= checkpoint.offset
            else { continue }
            var fresh = JournalFollower(folder: folder, device: device)
            guard case .success(let read) = try fresh.read(Array(journal[..<checkpoint.offset]), keys: link.keys),
                  fresh.checkpoint == checkpoint
            else { continue }
            for record in read.records { _ = link.merge(record) }
            if saved.damage == nil { followers[device] = fresh }
        }
        return followers
    }

    /// Reads every other device's journal from where its follower stands and merges what is new into `state`.
    func mergeArrivals(through link: SyncLink, into state: CollectionState, pending: inout [PendingWrite]) throws {
        let folder = link.state.syncFolder
        for device in try folder.devices() where device != link.state.device && link.followers[device] == nil {
            link.followers[device] = JournalFollower(folder: folder, device: device)
        }
        for device in link.followers.keys.sorted() {
            guard var follower = link.followers[device], follower.damage == nil else { continue }
            let result: Result<JournalRead, JournalDamage>
            do {
                result = try follower.readFile(keys: link.keys)
            } catch {
                // Unreadable now (permissions, I/O, no secure memory): read again next time, nothing changed.
                logger.notice("a sync journal could not be read now", metadata: [
                    "secret.collection": "\(state.id)", "sync.device": "\(device)", "error": "\(error)"])
                continue
            }
            link.followers[device] = follower
            switch result {
            case .failure(let damage):
                logger.error("a sync journal is damaged and set aside; nothing more of it is merged", metadata: [
                    "secret.collection": "\(state.id)", "sync.device": "\(device)", "reason": "\(damage)"])
            case .success(let read):
                if !read.records.isEmpty {
                    logger.notice("merged another device's changes", metadata: [
                        "secret.collection": "\(state.id)", "sync.device": "\(device)",
                        "sync.through": "\(follower.checkpoint?.lastSequence ?? 0)"])
                }
                for record in read.records {
                    switch link.merge(record) {
                    case .created(let item), .changed(let item), .deleted(let item):
                        try bringLocal(item, to: link, in: state, pending: &pending)
                    case .none:
                        break
                    }
                }
            }
        }
    }

    /// Makes the local item of `item` what the merged state says: its winning content, or gone. No journal record:
    /// the change is another device's, already in its journal.
    func bringLocal(_ item: SyncItemID, to link: SyncLink, in state: CollectionState, pending: inout [PendingWrite])
        throws {
        guard let entry = link.merged.entries[item] else { return }
        let local = link.localItems[item].flatMap { state.items[$0] }
        guard let content = entry.content else {
            guard let local else { return }
            if let write = try persist(.delete(itemID: local.id), in: state) { pending.append(write) }
            collections[state.id]?.remove(local.id)
            link.localItems[item] = nil
            eventSink.yield(.itemDeleted(collection: state.id, item: local.id))
            eventSink.yield(.collectionChanged(state.id, [.items, .modified]))
            return
        }
        let old = try local.flatMap { try openMeta($0.id, in: state) }
        // Already held (a compacted journal repeats the changes it keeps, and a restart may read some again).
        if let old, old.syncStamp == entry.stamp.bytes { return }
        let meta = ItemMeta(label: content.label, attributes: content.attributes, contentType: content.contentType,
                            created: content.created, modified: content.modified, creator: old?.creator,
                            allowed: old?.allowed ?? [], syncItem: item.bytes, syncStamp: entry.stamp.bytes)
        if let local {
            if let write = try write(local, meta: meta, secret: content.secret, in: state) { pending.append(write) }
            eventSink.yield(.itemChanged(collection: state.id, item: local.id, [.label, .attributes, .modified]))
            eventSink.yield(.collectionChanged(state.id, [.modified]))
            return
        }
        let sequence = state.nextSequence
        let made = StoredItem(id: String(sequence), sequence: sequence, knownModified: nil,
                              sealed: SealedItem(tags: [], meta: SealedBlob(nonce: [], sealed: []),
                                                 secret: SealedBlob(nonce: [], sealed: [])))
        if let write = try write(made, meta: meta, secret: content.secret, in: state) { pending.append(write) }
        collections[state.id]?.nextSequence = sequence + 1
        link.localItems[item] = made.id
        eventSink.yield(.itemCreated(collection: state.id, item: made.id))
        eventSink.yield(.collectionChanged(state.id, [.items, .modified]))
    }

    func syncFollowersPath(of id: String) -> String? {
        syncDirectory.map { $0 + "/" + id + SyncFollowersFile.suffix }
    }

    /// Keeps how far each journal was merged, once what was merged is durable here. A failure is logged: the next
    /// opening then merges some records again, which changes nothing.
    func saveFollowers(of id: String, link: SyncLink) async {
        // A link dropped meanwhile (the collection left synchronization, or locked) must not leave its followers
        // behind: a later synchronization of the collection would resume them.
        guard syncLinks[id] === link, let path = syncFollowersPath(of: id), let directory = syncDirectory
        else { return }
        let outcome = await syncer.replace(path, with: SyncFollowersFile.encode(link.followers), directory: directory)
        if case .failed(let reason) = outcome {
            logger.error("how far other devices' journals were merged could not be saved",
                         metadata: ["secret.collection": "\(id)", "error": "\(reason)"])
        }
    }

    /// The unlocked local collection synchronized as `syncCollection` (32 hex digits), with the journals it set
    /// aside; `nil` when there is none.
    public func setAsideJournals(inSyncCollection syncCollection: String) -> (collection: String,
                                                                              journals: [String: String])? {
        guard let (id, _) = syncLinks.first(where: { $0.value.state.collection.description == syncCollection })
        else { return nil }
        return (id, setAsideJournals(of: id))
    }

    /// The journals set aside, with the reason, by device; empty while the collection is locked.
    public func setAsideJournals(of id: String) -> [String: String] {
        guard let link = syncLinks[id] else { return [:] }
        var found: [String: String] = [:]
        for (device, follower) in link.followers {
            if let damage = follower.damage { found[device.description] = "\(damage)" }
        }
        return found
    }
}

extension ChangeStamp {
    /// The stamp kept in an item's sealed metadata: the clock, then the device id.
    var bytes: [UInt8] {
        var writer = ByteWriter()
        writer.u64(clock.packed)
        return writer.bytes + device.bytes
    }

    init?(bytes: [UInt8]) {
        guard bytes.count == 8 + SyncIdentifier.byteCount,
              let device = SyncIdentifier(bytes: Array(bytes[8...]))
        else { return nil }
        let packed = bytes[..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        self.init(clock: HybridTimestamp(packed: packed), device: device)
    }
}

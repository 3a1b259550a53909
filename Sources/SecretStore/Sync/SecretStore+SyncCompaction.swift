// SPDX-License-Identifier: Apache-2.0
// Compacting this device's journal of a synchronized collection (docs/SYNC.md, "Compaction and tombstone expiry").

import CollectionSync
import Logging

extension SecretStore {
    /// Replaces this device's journal by a snapshot once the records other changes superseded outnumber the ones
    /// still winning, and there are at least ``syncCompactionMinimum`` records. Called after a change was
    /// acknowledged, in the store's step: the snapshot is written beside the journal, synced and renamed over it
    /// (a crash leaves the old journal or the new one, whole), so every acknowledged change is in whichever
    /// survives. The other devices take the new file as the device's next journal (its compaction number is higher
    /// and its numbering goes on). A failure leaves the old journal in use: logged, and the link is opened again.
    func compactSyncJournalIfWorthwhile(of id: String) {
        guard let link = syncLinks[id] else { return }
        let writer = link.writer
        let device = link.state.device
        let records = Int(writer.nextSequence - writer.header.firstSequence)
        // The items its changes win, its name and the closing `seen` record: what a snapshot keeps at most.
        let live = (link.merged.winning[device] ?? 0) + 2
        guard records >= syncCompactionMinimum, records - live > live else { return }
        logger.notice("compacting the sync journal", metadata: [
            "secret.collection": "\(id)", "sync.records": "\(records)", "sync.live": "\(live)"])
        do {
            var horizons: [DeviceID: [DeviceID: UInt64]] = [:]
            for (other, follower) in link.followers { horizons[other] = follower.checkpoint?.horizon ?? [:] }
            let kept = link.merged.snapshot(of: device, horizons: horizons, now: writer.clock.latest)
            var horizon = link.merged.seen
            horizon[device] = nil
            let written = try writer.compact(keeping: kept, horizon: horizon)
            for record in written { _ = link.merge(record) }
            logger.notice("compacted the sync journal", metadata: [
                "secret.collection": "\(id)", "sync.compaction": "\(writer.header.compaction)",
                "sync.records": "\(written.count)"])
        } catch {
            // What the journal holds now is verified when it is opened again.
            syncLinks[id] = nil
            logger.error("the sync journal could not be compacted", metadata: [
                "secret.collection": "\(id)", "error": "\(error)"])
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Reading another device's journal as it grows, trusting nothing the folder did not prove.

/// How far a journal has been verified: enough to check, on the next read, that the file only grew.
public struct JournalCheckpoint: Sendable, Equatable {
    /// The compaction the verified file carried.
    public var compaction: UInt64
    /// The header's MAC: two files of one compaction must have the same header.
    public var headerMAC: [UInt8]
    /// Where the last verified record ends.
    public var offset: Int
    /// The last verified sequence number (one below the header's first while no record is verified).
    public var lastSequence: UInt64
    /// The chain value after the last verified record: a MAC over the whole verified history.
    public var chain: [UInt8]
    /// The verified header's horizon: how far the device had merged the others when it last compacted.
    public var horizon: [DeviceID: UInt64]
}

/// What one read of a journal gave.
public struct JournalRead: Sendable {
    /// The records verified by this read, oldest first; each is in no earlier read's result (unless the device
    /// compacted, whose snapshot repeats live records: merging a record twice changes nothing).
    public var records: [SyncRecord]
    /// The file ends inside the header or a record: the rest has not arrived yet.
    public var waitingForMore: Bool
}

/// Follows one other device's journal in the folder.
///
/// Each read verifies only what is new, from the remembered ``JournalCheckpoint``, after checking that the file
/// still holds the verified history: not shorter, same compaction or a newer one, the same chain value where the
/// last read stopped. A read that finds damage returns nothing and sets the journal aside for good; a file that
/// ends early is taken as not yet arrived.
public struct JournalFollower: Sendable {
    public let folder: SyncFolder
    public let device: DeviceID
    /// Where verification stands (to be kept across restarts, so an older copy put back while the machine was off
    /// is still caught).
    public private(set) var checkpoint: JournalCheckpoint?
    /// Why the journal was set aside, once it was.
    public private(set) var damage: JournalDamage?

    public init(folder: SyncFolder, device: DeviceID, checkpoint: JournalCheckpoint? = nil) {
        self.folder = folder
        self.device = device
        self.checkpoint = checkpoint
    }

    public var path: String { folder.journalPath(for: device) }

    /// Sets the journal aside (a resumed state, or a reason found elsewhere).
    mutating func setAside(_ reason: JournalDamage) {
        damage = reason
    }

    /// Reads the journal file and verifies what is new.
    /// - Throws: ``SyncIOError`` when the file cannot be read now, ``CryptoError`` when libgcrypt cannot do the
    ///   work now (no secure memory left): try again later, nothing changed. Never for damage, which the result and
    ///   ``damage`` report.
    public mutating func readFile(keys: SyncKeys) throws -> Result<JournalRead, JournalDamage> {
        if let damage { return .failure(damage) }
        return try read(try SyncFiles.read(path), keys: keys)
    }

    /// Verifies what is new in `bytes`, the journal's current contents (`nil` when the file is gone).
    ///
    /// A journal that is gone holds nothing new and is no damage: Syncthing removes the old version of a file
    /// before it renames the new one into place, so a reader sees it missing between the two. Removing a journal
    /// for good only withholds changes, which someone who can write the folder can do anyway.
    /// - Throws: ``CryptoError`` when libgcrypt cannot do the work now; the follower is then as it was.
    public mutating func read(_ bytes: [UInt8]?, keys: SyncKeys) throws -> Result<JournalRead, JournalDamage> {
        if let damage { return .failure(damage) }
        guard let bytes else { return .success(JournalRead(records: [], waitingForMore: false)) }
        do {
            let read = try verify(bytes, keys: keys)
            return .success(read)
        } catch let error as JournalDamage {
            damage = error
            return .failure(error)
        }
    }

    private mutating func verify(_ bytes: [UInt8], keys: SyncKeys) throws -> JournalRead {
        precondition(keys.collection == folder.collection, "keys of another collection")
        let decoded = try JournalHeader.decode(bytes[...], keys: keys)
        guard case .header(let header, let headerLength, let headerMAC) = decoded else {
            if let checkpoint { throw JournalDamage.truncated(verified: checkpoint.offset, found: bytes.count) }
            return JournalRead(records: [], waitingForMore: true)
        }
        guard header.collection == folder.collection else {
            throw JournalDamage.misplaced("the header names collection \(header.collection)")
        }
        guard header.device == device else { throw JournalDamage.misplaced("the header names device \(header.device)") }

        var start = (offset: headerLength, lastSequence: header.firstSequence - 1, chain: headerMAC)
        if let checkpoint {
            if header.compaction < checkpoint.compaction {
                throw JournalDamage.rolledBack(verified: checkpoint.compaction, found: header.compaction)
            } else if header.compaction == checkpoint.compaction {
                guard headerMAC == checkpoint.headerMAC else { throw JournalDamage.forked(sequence: header.firstSequence) }
                guard bytes.count >= checkpoint.offset else {
                    throw JournalDamage.truncated(verified: checkpoint.offset, found: bytes.count)
                }
                if checkpoint.offset > headerLength {
                    let stored = Array(bytes[checkpoint.offset - JournalRecordCodec.macByteCount..<checkpoint.offset])
                    guard stored == checkpoint.chain else { throw JournalDamage.forked(sequence: checkpoint.lastSequence) }
                }
                start = (checkpoint.offset, checkpoint.lastSequence, checkpoint.chain)
            } else {
                // A compacted journal: its numbering must go on from where the verified one stopped, or it is
                // an older history dressed up as new.
                guard header.firstSequence > checkpoint.lastSequence else {
                    throw JournalDamage.forked(sequence: header.firstSequence)
                }
            }
        }
        let scan = try JournalScan.run(bytes, from: start.offset, lastSequence: start.lastSequence,
                                       chain: start.chain, device: device, keys: keys)
        checkpoint = JournalCheckpoint(compaction: header.compaction, headerMAC: headerMAC, offset: scan.end,
                                       lastSequence: scan.lastSequence, chain: scan.chain, horizon: header.horizon)
        return JournalRead(records: scan.records, waitingForMore: scan.incompleteTail)
    }
}

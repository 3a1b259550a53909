// SPDX-License-Identifier: Apache-2.0
// An unlocked synchronized collection's tie to its folder: its keys, its journal writer and what was merged.

import CollectionSync
import SecretCrypto

/// Owned by the store actor, one per unlocked synchronized collection, and dropped when the collection locks (the
/// keys are in secure memory and go with it). Every local change of the collection is appended through ``writer``
/// in the same step of the actor that writes it to the collection's file, so the journal's order (and so its
/// clock readings) is the order the changes were made in.
final class SyncLink {
    let state: SyncStateFile
    let masterKey: SecretBytes
    let keys: SyncKeys
    let writer: CollectionSync.JournalWriter
    /// The records merged so far: the items as the journals say they are, to tell which local items the journal
    /// does not yet hold as they are.
    var merged: MergedCollection
    /// The other devices' journals, as far as they were verified and merged.
    var followers: [DeviceID: JournalFollower] = [:]
    /// Which local item holds each synchronized item.
    var localItems: [SyncItemID: String] = [:]

    init(state: SyncStateFile, masterKey: SecretBytes, keys: SyncKeys, writer: CollectionSync.JournalWriter,
         merged: MergedCollection) {
        self.state = state
        self.masterKey = masterKey
        self.keys = keys
        self.writer = writer
        self.merged = merged
    }

    /// Appends `change` without waiting for the disk and merges it, as every other device will.
    /// - Returns: the descriptor to sync before the change is acknowledged.
    func append(_ change: SyncChange) throws -> Int32 {
        let (record, descriptor) = try writer.appendUnsynced(change)
        merged.merge(record)
        return descriptor
    }

    /// Merges another device's verified record, as this device's clock must see it.
    func merge(_ record: SyncRecord) -> MergeEffect {
        writer.observe(record.clock)
        return merged.merge(record)
    }
}

/// What `coffer sync enable` made.
public struct SyncEnabled: Sendable, Equatable {
    /// The synchronized collection's id: its directory's name in the folder.
    public let collection: String
    /// This machine's device id: its journal's and wrap's names.
    public let device: String
}

/// A synchronized collection whose journal was opened, and the directory its journals are in.
public struct OpenedSyncFolder: Sendable, Equatable {
    public let collection: String
    public let directory: String
    /// The file name of this device's own journal there.
    public let ownJournal: String
}

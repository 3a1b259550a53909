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
}

/// What `coffer sync enable` made.
public struct SyncEnabled: Sendable, Equatable {
    /// The synchronized collection's id: its directory's name in the folder.
    public let collection: String
    /// This machine's device id: its journal's and wrap's names.
    public let device: String
}

// SPDX-License-Identifier: Apache-2.0
// A password change of a synchronized collection reaching the folder: this device's password wrap made anew.

import CollectionSync
import Logging
import SecretCrypto
import SecretServiceProtocol

/// What rewriting this device's wrap needs, taken while the collection is unlocked (the synchronized master key
/// opens only then); the Argon2id run that follows happens off the store's actor.
struct SyncWrapTarget: Sendable {
    let folder: SyncFolder
    let device: DeviceID
    let masterKey: SecretBytes
    let clock: HybridTimestamp
    let collection: String
}

extension SecretStore {
    /// The wrap to write after the password of `id` changed, or `nil` when the collection is not synchronized (or
    /// its state does not open: logged, the change stands locally). The clock is past this device's journal and
    /// past its wrap in the folder, so a joining machine tries the new wrap before any older copy.
    func syncWrapTarget(of id: String) -> SyncWrapTarget? {
        guard let keys = collections[id]?.keys else { return nil }
        do {
            let link = syncLinks[id]
            let stateFile: SyncStateFile
            let masterKey: SecretBytes
            if let link {
                (stateFile, masterKey) = (link.state, link.masterKey)
            } else {
                switch try openSyncState(of: id, localMaster: keys.master) {
                case .notSynchronized:
                    return nil
                case .sealedUnderAnotherKey(let error):
                    throw error
                case .opened(let opened, let key):
                    (stateFile, masterKey) = (opened, key)
                }
            }
            var folder = stateFile.syncFolder
            if let configured = configuredSyncFolders[id] {
                folder = SyncFolder(root: configured, collection: stateFile.collection)
            }
            var clock = link?.writer.clock ?? HybridLogicalClock()
            if let previous = try? folder.wraps().first(where: { $0.device == stateFile.device }) {
                clock.observe(previous.clock)
            }
            return SyncWrapTarget(folder: folder, device: stateFile.device, masterKey: masterKey,
                                  clock: try clock.tick(), collection: id)
        } catch {
            logger.error("the sync folder's password wrap cannot be made anew; joining needs the old password",
                         metadata: ["secret.collection": "\(id)", "error": "\(error)"])
            return nil
        }
    }

    /// Replaces this device's wrap in the folder by one made with `password` (written to a new temporary file,
    /// synced and renamed over the old one, so the folder holds the old wrap or the new one). A failure is logged:
    /// the password change stands here, and the other machines keep unlocking with their own key slots.
    nonisolated func rewriteSyncWrap(_ target: SyncWrapTarget, password: SecretBytes) async {
        let parameters = keyDerivation
        do {
            try await offTheCallersExecutor { () throws(SecretServiceError) in
                do {
                    let keys = try SyncKeys(masterKey: target.masterKey, collection: target.folder.collection)
                    let wrap = try PasswordWrap.make(masterKey: target.masterKey, password: password, keys: keys,
                                                     device: target.device, clock: target.clock,
                                                     parameters: parameters)
                    try target.folder.store(wrap)
                } catch {
                    throw .failed("\(error)")
                }
            }
            logger.notice("the password wrap in the sync folder was made with the new password",
                          metadata: ["secret.collection": "\(target.collection)", "sync.device": "\(target.device)"])
        } catch {
            logger.error("the sync folder's password wrap could not be made anew; joining needs the old password",
                         metadata: ["secret.collection": "\(target.collection)", "error": "\(error)"])
        }
    }
}

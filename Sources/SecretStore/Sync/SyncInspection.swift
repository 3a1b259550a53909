// SPDX-License-Identifier: Apache-2.0
// What the data directory says of synchronized collections without any password, for `coffer doctor`.

#if canImport(Glibc)
import Glibc
#endif
import CollectionSync

/// Reads the sync state and followers files with the store's own decoders: which local collections are
/// synchronized, through which folder, and which other devices' journals cofferd set aside and why. The followers
/// file keeps that across restarts and while a collection is locked, so this needs neither keys nor a running
/// cofferd.
public enum SyncInspection {
    /// One synchronized collection as the data directory records it.
    public struct Synchronized: Sendable, Equatable {
        /// The local collection's id.
        public let keychain: String
        /// The synchronized collection's id, its directory in the folder.
        public let collection: String
        /// This machine's device id there.
        public let device: String
        public let folder: String
        /// Other devices' journals set aside, with the reason.
        public let setAside: [SetAsideJournal]
        /// Why the followers file could not be read, when it could not.
        public let problem: String?
    }

    public struct SetAsideJournal: Sendable, Equatable {
        public let device: String
        public let journal: String
        public let reason: String
    }

    /// The synchronized collections of the data directory `directory`, by local id; a sync state that cannot be read
    /// comes with its problem and no ids.
    public static func synchronizedCollections(in directory: String) -> [Synchronized] {
        let syncDirectory = directory + "/" + SyncStateFile.directoryName
        guard let stream = opendir(syncDirectory) else { return [] }
        var names: [String] = []
        while let entry = readdir(stream) {
            names.append(withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            })
        }
        closedir(stream)
        return names.filter { $0.hasSuffix(SyncStateFile.suffix) }.sorted().map { name in
            let keychain = String(name.dropLast(SyncStateFile.suffix.count))
            let base = syncDirectory + "/" + keychain
            guard let bytes = try? POSIXFile.read(base + SyncStateFile.suffix, limit: 1 << 16),
                  let state = try? SyncStateFile.decode(bytes)
            else {
                return Synchronized(keychain: keychain, collection: "", device: "", folder: "", setAside: [],
                                    problem: "its sync state cannot be read")
            }
            var setAside: [SetAsideJournal] = []
            var problem: String?
            do {
                if let saved = try POSIXFile.read(base + SyncFollowersFile.suffix, limit: 1 << 24) {
                    let followers = try SyncFollowersFile.decode(saved, folder: state.syncFolder)
                    for (device, follower) in followers.sorted(by: { $0.key < $1.key }) {
                        guard let damage = follower.damage else { continue }
                        setAside.append(SetAsideJournal(device: device.description, journal: follower.path,
                                                        reason: damage.description))
                    }
                }
            } catch {
                problem = "how far other devices' journals were merged cannot be read: \(error)"
            }
            return Synchronized(keychain: keychain, collection: state.collection.description,
                                device: state.device.description, folder: state.folder, setAside: setAside,
                                problem: problem)
        }
    }
}

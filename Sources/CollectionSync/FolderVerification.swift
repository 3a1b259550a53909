// SPDX-License-Identifier: Apache-2.0
// Reading a whole collection directory at once: for `coffer sync status` now, for cofferd's start later.

#if canImport(Glibc)
import Glibc
#endif
public import SecretCrypto

/// What one device's files in the folder showed.
public struct DeviceFolderStatus: Sendable {
    public var device: DeviceID
    /// The device's latest name from its journal (`nil` when it announced none, or nothing was verified).
    public var name: String?
    /// Records verified in its journal.
    public var records: Int = 0
    /// Where verification stands (compaction, last sequence number).
    public var checkpoint: JournalCheckpoint?
    /// The journal ends inside a record: the rest has not arrived.
    public var waitingForMore = false
    /// Why the journal was set aside, if it was.
    public var damage: JournalDamage?
    /// The journal could not be read now (it was being written, or permissions).
    public var readFailure: String?
}

/// Every journal of a collection directory, verified, and the collection their records make.
public struct FolderVerification: Sendable {
    public var devices: [DeviceFolderStatus]
    public var merged: MergedCollection
}

/// No password wrap in the folder opened with the password given.
public struct NoWrapOpens: Error, CustomStringConvertible, Equatable, Sendable {
    /// How many wraps were tried.
    public let tried: Int
    public var description: String {
        tried == 0 ? "the folder holds no password wrap for this collection"
            : "the password opens none of the \(tried) password wrap(s) in the folder"
    }
}

extension SyncFolder {
    /// The synchronized collections in `root`: directories named by a collection id.
    public static func collections(in root: String) throws(SyncIOError) -> [SyncCollectionID] {
        guard let stream = opendir(root) else { throw SyncIOError("cannot list", root) }
        defer { closedir(stream) }
        var found: [SyncCollectionID] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if let collection = SyncIdentifier(hex: name) { found.append(collection) }
        }
        return found.sorted()
    }

    /// The master key, from the newest wrap `password` opens. Slow: one Argon2id run per wrap tried.
    /// - Throws: ``NoWrapOpens`` when none opens; ``SyncIOError``; ``CryptoError`` when no secure memory is left.
    public func unlock(password: SecretBytes) throws -> SecretBytes {
        let wraps = try wraps()
        for wrap in wraps {
            do {
                return try wrap.unwrap(password: password)
            } catch let error as CryptoError where error == .authenticationFailed {
                continue
            } catch is SyncFormatError {
                continue
            }
        }
        throw NoWrapOpens(tried: wraps.count)
    }

    /// Reads and verifies every journal in the directory from its start and merges all they hold.
    /// - Parameter except: a device whose journal is not read (the caller's own).
    public func verify(keys: SyncKeys, except: DeviceID? = nil) throws(SyncIOError) -> FolderVerification {
        var result = FolderVerification(devices: [], merged: MergedCollection())
        for device in try devices() where device != except {
            var status = DeviceFolderStatus(device: device)
            var follower = JournalFollower(folder: self, device: device)
            do {
                switch try follower.readFile(keys: keys) {
                case .success(let read):
                    status.records = read.records.count
                    status.waitingForMore = read.waitingForMore
                    for record in read.records { result.merged.merge(record) }
                    status.name = result.merged.deviceNames[device]?.name
                case .failure(let damage):
                    status.damage = damage
                }
            } catch {
                status.readFailure = "\(error)"
            }
            status.checkpoint = follower.checkpoint
            result.devices.append(status)
        }
        return result
    }
}

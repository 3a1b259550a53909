// SPDX-License-Identifier: Apache-2.0
// Where a synchronized collection's files lie in the folder a sync engine carries.

#if canImport(Glibc)
import Glibc
#endif

/// `<folder>/<collection id>/`: one `<device id>.journal` and one `<device id>.wrap` per device.
public struct SyncFolder: Sendable, Equatable {
    /// The folder the sync engine keeps in step between machines.
    public let root: String
    public let collection: SyncCollectionID

    public init(root: String, collection: SyncCollectionID) {
        self.root = root
        self.collection = collection
    }

    /// The directory of this collection's files.
    public var directory: String { root + "/" + collection.description }
    /// The file holding the collection's master key wrapped with its password, as `device` last set it.
    public func wrapPath(for device: DeviceID) -> String {
        directory + "/" + device.description + Self.wrapSuffix
    }

    static let wrapSuffix = ".wrap"

    public func journalPath(for device: DeviceID) -> String {
        directory + "/" + device.description + Self.journalSuffix
    }

    static let journalSuffix = ".journal"

    /// The devices whose journals are in the directory. Anything else (an engine's temporary files, conflict
    /// copies, a half-written `.tmp` of a compaction) is not a journal and is left alone.
    public func devices() throws(SyncIOError) -> [DeviceID] {
        try devices(withFilesEndingIn: Self.journalSuffix)
    }

    /// The devices that left a password wrap in the directory.
    public func wrappingDevices() throws(SyncIOError) -> [DeviceID] {
        try devices(withFilesEndingIn: Self.wrapSuffix)
    }

    private func devices(withFilesEndingIn suffix: String) throws(SyncIOError) -> [DeviceID] {
        guard let stream = opendir(directory) else {
            if errno == ENOENT { return [] }
            throw SyncIOError("cannot list", directory)
        }
        defer { closedir(stream) }
        var devices: [DeviceID] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard name.hasSuffix(suffix), let device = SyncIdentifier(hex: name.dropLast(suffix.count))
            else { continue }
            devices.append(device)
        }
        return devices.sorted()
    }
}

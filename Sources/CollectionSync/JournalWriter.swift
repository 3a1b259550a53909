// SPDX-License-Identifier: Apache-2.0
// A device's own journal: append-only, each record durable before it is acknowledged.

#if canImport(Glibc)
import Glibc
#endif
import SecretCrypto

/// Appends this device's changes to its journal in the folder.
///
/// Each record goes out in one `write` on an `O_APPEND` descriptor and is `fsync`ed before ``append(_:)`` returns.
/// A process killed during a write leaves a torn last record: the next ``open(folder:device:keys:wallClock:)`` cuts
/// it off (it was never acknowledged). That cut happens only here, in the device's own journal; readers of other
/// devices' journals wait for the rest instead. Not shared between threads: one owner (the collection's actor).
public final class JournalWriter {
    public let path: String
    public let folder: SyncFolder
    public let device: DeviceID
    public private(set) var header: JournalHeader
    /// The sequence number the next record gets.
    public private(set) var nextSequence: UInt64
    /// The device's clock; ``observe(_:)`` feeds it the clocks of merged records.
    public private(set) var clock: HybridLogicalClock
    let keys: SyncKeys
    private var fd: Int32
    private var chain: [UInt8]
    /// The file's length after the last record written.
    private var length: Int

    /// What opening found in the journal.
    public struct Opened {
        public let writer: JournalWriter
        /// Every record already in the journal, oldest first (to rebuild the device's own state on a new machine).
        public let records: [SyncRecord]
        /// Bytes of a torn last record that were cut off (0 when the journal was whole).
        public let discardedBytes: Int
    }

    private init(folder: SyncFolder, device: DeviceID, keys: SyncKeys, fd: Int32, header: JournalHeader,
                 chain: [UInt8], nextSequence: UInt64, length: Int, clock: HybridLogicalClock) {
        self.folder = folder
        self.path = folder.journalPath(for: device)
        self.device = device
        self.keys = keys
        self.fd = fd
        self.header = header
        self.chain = chain
        self.nextSequence = nextSequence
        self.length = length
        self.clock = clock
    }

    deinit { close(fd) }

    /// Opens the device's journal, creating the collection's directory and the journal when missing.
    /// - Throws: ``JournalDamage`` when the journal is damaged beyond a torn last record (it is then left exactly as
    ///   found, and nothing is written); ``SyncIOError`` for I/O failures; ``CryptoError``.
    public static func open(folder: SyncFolder, device: DeviceID, keys: SyncKeys,
                            wallClock: @escaping @Sendable () -> UInt64 = HybridLogicalClock.systemMilliseconds)
        throws -> Opened {
        precondition(keys.collection == folder.collection, "keys of another collection")
        let path = folder.journalPath(for: device)
        try SyncFiles.ensureDirectory(folder.directory)
        guard let bytes = try SyncFiles.read(path) else {
            return try create(folder: folder, device: device, keys: keys, wallClock: wallClock)
        }
        guard case .header(let header, let headerLength, let headerMAC) = try JournalHeader.decode(bytes[...], keys: keys)
        else {
            // Killed while creating it: the header was never synced, so nothing was ever acknowledged.
            guard unlink(path) == 0 else { throw SyncIOError("cannot remove the incomplete", path) }
            return try create(folder: folder, device: device, keys: keys, wallClock: wallClock)
        }
        guard header.collection == folder.collection, header.device == device else {
            throw JournalDamage.misplaced("\(path) holds the journal of device \(header.device)")
        }
        let scan = try JournalScan.run(bytes, from: headerLength, lastSequence: header.firstSequence - 1,
                                       chain: headerMAC, device: device, keys: keys)
        let fd = Glibc.open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw SyncIOError("cannot open", path) }
        if scan.end < bytes.count {
            guard ftruncate(fd, off_t(scan.end)) == 0 else {
                close(fd)
                throw SyncIOError("cannot cut the torn record off", path)
            }
            do { try SyncFiles.sync(fd, path: path) } catch { close(fd); throw error }
        }
        let latest = scan.records.map(\.clock).max() ?? .zero
        let writer = JournalWriter(folder: folder, device: device, keys: keys, fd: fd, header: header,
                                   chain: scan.chain, nextSequence: scan.lastSequence + 1, length: scan.end,
                                   clock: HybridLogicalClock(latest: latest, wallClock: wallClock))
        return Opened(writer: writer, records: scan.records, discardedBytes: bytes.count - scan.end)
    }

    private static func create(folder: SyncFolder, device: DeviceID, keys: SyncKeys,
                               wallClock: @escaping @Sendable () -> UInt64) throws -> Opened {
        let path = folder.journalPath(for: device)
        let header = JournalHeader(collection: folder.collection, device: device)
        let (bytes, mac) = try header.encode(keys: keys)
        let fd = try SyncFiles.createExclusively(path, flags: O_APPEND)
        do {
            try SyncFiles.writeAll(fd, bytes, path: path)
            try SyncFiles.sync(fd, path: path)
            try SyncFiles.syncDirectory(folder.directory)
        } catch {
            close(fd)
            unlink(path)
            throw error
        }
        let writer = JournalWriter(folder: folder, device: device, keys: keys, fd: fd, header: header, chain: mac,
                                   nextSequence: header.firstSequence, length: bytes.count,
                                   clock: HybridLogicalClock(wallClock: wallClock))
        return Opened(writer: writer, records: [], discardedBytes: 0)
    }

    /// Appends `change` and makes it durable.
    /// - Returns: the record as readers will see it, with its clock and sequence number.
    /// - Throws: ``SyncIOError`` when the write or `fsync` fails (the file is cut back to its last record first, so
    ///   nothing unacknowledged stays) or the journal is no longer the file this writer wrote;
    ///   ``SyncFormatError`` for a change too large for the format; ``ClockError``.
    @discardableResult
    public func append(_ change: SyncChange) throws -> SyncRecord {
        let before = (clock, length, chain, nextSequence)
        let (record, descriptor) = try appendUnsynced(change)
        defer { close(descriptor) }
        do {
            try SyncFiles.sync(descriptor, path: path)
        } catch {
            (clock, length, chain, nextSequence) = before
            cutBack(to: length)
            throw error
        }
        return record
    }

    /// Appends `change` without waiting for the disk, for an owner that must not block its thread on an `fsync`
    /// (cofferd's store runs on the bus loop). The owner syncs the returned descriptor (a duplicate of the
    /// journal's, its own to close) before it acknowledges the change; a record that never became durable is torn
    /// or whole after a crash, and the next ``open(folder:device:keys:wallClock:)`` verifies what is there.
    /// - Returns: the record as readers will see it, and the descriptor to sync.
    /// - Throws: as ``append(_:)``, but never for the sync.
    public func appendUnsynced(_ change: SyncChange) throws -> (record: SyncRecord, descriptor: Int32) {
        try checkStillOwnFile()
        var next = clock
        let stamp = try next.tick()
        let framed = try JournalRecordCodec.seal(change, clock: stamp, sequence: nextSequence, device: device,
                                                 previousMAC: chain, keys: keys)
        let descriptor = dup(fd)
        guard descriptor >= 0 else { throw SyncIOError("cannot duplicate the descriptor of", path) }
        do {
            try SyncFiles.writeAll(fd, framed.bytes, path: path)
        } catch {
            close(descriptor)
            cutBack(to: length)
            throw error
        }
        clock = next
        length += framed.bytes.count
        chain = framed.mac
        defer { nextSequence += 1 }
        return (SyncRecord(device: device, sequence: nextSequence, clock: stamp, change: change), descriptor)
    }

    /// Cuts the file back to its last record after a failed write or sync. An owner of ``appendUnsynced(_:)`` whose
    /// sync fails cannot cut (later records may follow): it drops the writer and reopens, which verifies the file.
    private func cutBack(to length: Int) {
        _ = ftruncate(fd, off_t(length))
    }

    /// Refuses to append when something else changed the journal: an engine that renamed another copy over it
    /// (the descriptor would then write into a file nobody sees) or wrote to it. Appending would lose the change or
    /// fork the journal; the caller reopens instead, which verifies what is there now.
    private func checkStillOwnFile() throws(SyncIOError) {
        var open = stat(), named = stat()
        guard fstat(fd, &open) == 0 else { throw SyncIOError("cannot inspect", path) }
        guard lstat(path, &named) == 0 else {
            throw SyncIOError(message: "\(path) was removed or renamed by something else; reopen the journal")
        }
        guard open.st_dev == named.st_dev, open.st_ino == named.st_ino, open.st_size == off_t(length) else {
            throw SyncIOError(message: "\(path) was replaced or changed by something else; reopen the journal")
        }
    }

    /// Takes over the file a compaction renamed into place.
    func replaceFile(descriptor: Int32, header: JournalHeader, chain: [UInt8], nextSequence: UInt64, length: Int,
                     clock: HybridLogicalClock) {
        close(fd)
        self.clock = clock
        fd = descriptor
        self.header = header
        self.chain = chain
        self.nextSequence = nextSequence
        self.length = length
    }

    /// Orders this device's next change after a merged record's clock.
    public func observe(_ remote: HybridTimestamp) {
        clock.observe(remote)
    }
}

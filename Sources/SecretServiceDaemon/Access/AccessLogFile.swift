// SPDX-License-Identifier: Apache-2.0
// The access log's current file: opened for appending, its chains learnt from its records, rotated at its bound.

#if canImport(Glibc)
import Glibc
#endif
import SecretCrypto

/// The open `access.log` and what the next record needs: the file's id, the next record index and, per collection,
/// the sequence and tag of its last record. Learnt from the records' clear fields when the file is opened, so
/// appending needs no key but the one that seals the new record. A value owned by ``AccessLog``.
struct AccessLogFile {
    struct LogFileError: Error, CustomStringConvertible {
        let description: String
        init(_ what: String) { description = "\(what): \(String(cString: strerror(errno)))" }
    }

    struct Chain {
        var sequence: UInt64
        var tag: [UInt8]
    }

    let path: String
    let maximumBytes: Int
    private(set) var descriptor: Int32 = -1
    /// The bytes the file holds as far as cofferd wrote it: a shorter file was cut from outside.
    private(set) var size = 0
    private(set) var fileID: [UInt8] = []
    private var nextIndex: UInt64 = 1
    private var chains: [String: Chain] = [:]

    init(path: String, maximumBytes: Int) {
        self.path = path
        self.maximumBytes = maximumBytes
    }

    var isOpen: Bool { descriptor >= 0 }

    mutating func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    /// Opens (creating) the file for appending and makes it the user's alone. A torn last record (a crash while
    /// writing) is cut off; a file that is not an access log, or is damaged inside, is rotated away whole, so the
    /// reader still reports it and new records start a clean chain; so is a file of an earlier version.
    /// - Returns: what was repaired, for cofferd's log and for the next reading; `nil` when nothing was.
    mutating func open() throws -> String? {
        let fd = Glibc.open(path, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw LogFileError("cannot open") }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            Glibc.close(fd)
            throw LogFileError("not a regular file")
        }
        if info.st_mode & 0o077 != 0, fchmod(fd, 0o600) != 0 {
            Glibc.close(fd)
            throw LogFileError("cannot make it private")
        }
        descriptor = fd
        chains = [:]
        nextIndex = 1
        let bytes = Self.read(path) ?? []
        if bytes.isEmpty {
            fileID = SecureRandom.nonce(count: AccessLogFormat.fileIDCount)
            size = 0
            try append(AccessLogFormat.header(fileID: fileID), durable: true)
            // A record synced into a file whose name is not is lost with it on a power cut (a key-change record
            // must outlast the collection file it precedes).
            syncDirectory()
            return nil
        }
        guard let id = AccessLogFormat.fileID(ofHeader: bytes[...]) else {
            try rotate()
            return "\(AccessLog.fileName) was not an access log of this version; it was moved to"
                + " \(AccessLog.fileName)\(AccessLog.rotatedSuffix)"
        }
        guard AccessLogFormat.version(ofHeader: bytes[...]) == AccessLogFormat.version else {
            // An upgrade, not damage: the older file is still read (as `access.log.1`), and appending records of
            // another version to it would make them unreadable.
            try rotate()
            return nil
        }
        fileID = id
        var rest = bytes.dropFirst(AccessLogFormat.headerCount)
        while !rest.isEmpty {
            switch AccessLogRecord.parse(rest) {
            case .record(let record, _) where record.index == .max || record.sequence == .max:
                // No record cofferd writes comes near the end of the range, and the next one could not be numbered.
                try rotate()
                return "\(AccessLog.fileName) was damaged at byte \(rest.startIndex) (a record numbered past any"
                    + " written); it was moved to \(AccessLog.fileName)\(AccessLog.rotatedSuffix)"
            case .record(let record, let count):
                chains[record.collection] = Chain(sequence: record.sequence, tag: record.tag)
                nextIndex = record.index + 1
                rest = rest.dropFirst(count)
            case .torn:
                // Appending after a torn record would glue the next one to it.
                guard ftruncate(fd, off_t(rest.startIndex)) == 0 else { throw LogFileError("cannot cut a torn record") }
                size = rest.startIndex
                return "a torn last record of \(AccessLog.fileName) (\(rest.count) bytes) was cut off when it was"
                    + " opened: a crash while writing, or the file was cut"
            case .damaged:
                try rotate()
                return "\(AccessLog.fileName) was damaged at byte \(rest.startIndex); it was moved to"
                    + " \(AccessLog.fileName)\(AccessLog.rotatedSuffix)"
            }
        }
        size = bytes.count
        return nil
    }

    /// Seals `payload` as the next record of `collection`; the chain advances only once the bytes are written.
    func seal(_ kind: AccessLogRecord.Kind, collection: String, key: AccessLogKey, payload: SecretBytes,
              after pending: [String: Chain], index: UInt64) throws -> AccessLogRecord {
        let chain = pending[collection] ?? chains[collection]
        return try AccessLogRecord(kind: kind, index: index, collection: collection,
                                   sequence: (chain?.sequence ?? 0) + 1, key: key, payload: payload,
                                   fileID: fileID, previousTag: chain?.tag)
    }

    /// The index the next record takes.
    var upcomingIndex: UInt64 { nextIndex }

    /// Writes sealed records, and advances the chains past them.
    mutating func write(_ records: [AccessLogRecord], durable: Bool) throws {
        try append(records.flatMap(\.encoded), durable: durable)
        for record in records {
            chains[record.collection] = Chain(sequence: record.sequence, tag: record.tag)
            nextIndex = record.index + 1
        }
    }

    /// Whether a record of `count` bytes, after `pending` bytes of records not yet written, would pass the bound.
    /// A file without records never rotates (a record larger than the bound is written alone); one whose records
    /// are all still pending does (a batch larger than the bound into a fresh file).
    func wouldOverflow(adding count: Int, after pending: Int) -> Bool {
        (size > AccessLogFormat.headerCount || pending > 0) && size + pending + count > maximumBytes
    }

    /// Renames the file to `access.log.1` (replacing the one before, atomically) and starts a new one.
    mutating func rotate() throws {
        close()
        guard rename(path, path + AccessLog.rotatedSuffix) == 0 else { throw LogFileError("cannot rotate") }
        _ = try open()  // which syncs the directory, the rename with the new file
    }

    private func syncDirectory() {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        let dirfd = Glibc.open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirfd >= 0 {
            _ = fsync(dirfd)
            Glibc.close(dirfd)
        }
    }

    private mutating func append(_ bytes: [UInt8], durable: Bool) throws {
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw LogFileError("cannot write") }
            written += count
        }
        size += bytes.count
        guard !durable || fdatasync(descriptor) == 0 else { throw LogFileError("cannot sync") }
    }

    /// Renames plain-text logs of earlier versions (their lines start with the line form's version, `1` and a tab)
    /// to `NAME.unsealed`, so they are neither appended to nor taken for damaged sealed logs.
    /// - Returns: the files set aside.
    static func setAsideUnsealed(_ path: String) -> [String] {
        [path + AccessLog.rotatedSuffix, path].filter { file in
            guard let bytes = read(file), bytes.starts(with: Array("1\t".utf8)) else { return false }
            return rename(file, file + ".unsealed") == 0
        }
    }

    /// Whether anything is at `path` (a file that is not a log is still one to move aside and report).
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// A whole file, or `nil` when it is missing or not a regular file.
    static func read(_ path: String) -> [UInt8]? {
        let fd = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        return bytes
    }
}

// SPDX-License-Identifier: Apache-2.0
// The access log: every access decision appended to a bounded file in the data directory, readable by the user only.

#if canImport(Glibc)
import Glibc
#endif
import Logging

/// Owns the access log (docs/ACCESS-CONTROL.md, "The access log").
///
/// `access.log` in the data directory (0600, like the collection files), one ``AccessLogEntry`` per line, appended
/// with one `write` and made durable with `fdatasync` before the decision's call is answered. A crash can only cut
/// the last line short; such a tail is ignored by readers and cut off before the next append, so earlier entries are
/// never damaged. When the file would pass ``maximumBytes`` it is renamed to `access.log.1` (replacing the one
/// before) and a new file starts: the log holds between one and two files' worth of the newest entries.
///
/// Without a data directory (a daemon that keeps everything in memory) the newest entries are kept in memory.
/// Decisions are rare (each is a question to the user, a change by `coffer access`, or a first refusal per
/// connection) and synced as they happen; uses (every allowed read, change and delete) are many, and are written in
/// batches (``noteUses(_:)``).
actor AccessLog {
    static let fileName = "access.log"
    static let rotatedSuffix = ".1"
    /// Large enough for thousands of entries, small enough to read whole for `coffer access log`.
    static let defaultMaximumBytes = 256 * 1024

    /// `nil` keeps the log in memory.
    let path: String?
    let maximumBytes: Int
    private let logger: Logger
    private var descriptor: Int32 = -1
    private var size = 0
    /// The entries of a log without a file, newest last; bounded like the file.
    private var memory: [AccessLogEntry] = []
    /// Uses noted and not yet written, oldest first (``noteUses(_:)``).
    private var unwritten: [AccessLogEntry] = []
    private var flushScheduled = false

    /// - Parameters:
    ///   - directory: the data directory; `nil` keeps the log in memory.
    ///   - maximumBytes: the size at which the file is rotated.
    init(directory: String?, maximumBytes: Int = AccessLog.defaultMaximumBytes, logger: Logger) {
        path = directory.map { $0 + "/" + Self.fileName }
        self.maximumBytes = maximumBytes
        self.logger = logger
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Appends a decision and syncs it before returning. A failure to write is reported in cofferd's log and does not
    /// change the decision.
    func record(_ entry: AccessLogEntry) {
        flushUses()
        guard path != nil else { return remember(entry) }
        store(entry.line, durable: true)
    }

    /// Notes uses (reads, changes or deletes that were allowed). Uses are many (every lookup), so they are written in
    /// batches, at most once per ``useBatchInterval``, off the thread that answers calls, and not synced on their
    /// own: a crash can lose the uses of its last moments, while every decision is durable before its answer.
    func noteUses(_ entries: [AccessLogEntry]) {
        guard path != nil else { return entries.forEach(remember) }
        unwritten += entries
        guard !flushScheduled else { return }
        flushScheduled = true
        // Detached: no executor preference, so the write runs on the global pool, not on the bus loop.
        Task.detached(priority: .utility) { [self] in
            try? await Task.sleep(for: Self.useBatchInterval)
            await flushUses()
        }
    }

    /// How long noted uses wait to be written together: a client looking secrets up in a loop costs a write per
    /// interval, not per lookup.
    static let useBatchInterval: Duration = .milliseconds(200)

    /// Writes the uses noted so far.
    func flushUses() {
        flushScheduled = false
        guard !unwritten.isEmpty else { return }
        let batch = unwritten
        unwritten = []
        store(batch.flatMap(\.line), durable: false)
    }

    private func remember(_ entry: AccessLogEntry) {
        memory.append(entry)
        if memory.count > maximumBytes / 64 { memory.removeFirst(memory.count - maximumBytes / 64) }
    }

    private func store(_ lines: [UInt8], durable: Bool) {
        guard let path else { return }
        do {
            if descriptor < 0 { try open(path) }
            if size > 0, size + lines.count > maximumBytes { try rotate(path) }
            try append(lines, durable: durable)
        } catch {
            logger.error("the access log could not be written", metadata: ["path": "\(path)", "error": "\(error)"])
            if descriptor >= 0 { close(descriptor) }
            descriptor = -1  // the next entry opens (and repairs) the file again
        }
    }

    /// The entries at or after `since` (seconds since 1970), oldest first.
    func entries(since: UInt64 = 0) -> [AccessLogEntry] {
        flushUses()
        guard let path else { return memory.filter { $0.time >= since } }
        var lines: [AccessLogEntry] = []
        for file in [path + Self.rotatedSuffix, path] {
            guard let bytes = Self.read(file) else { continue }
            // Only complete lines: a last line without its newline is the trace of a write cut short.
            let complete = bytes.lastIndex(of: UInt8(ascii: "\n")).map { bytes[...$0] } ?? []
            for line in complete.split(separator: UInt8(ascii: "\n")) {
                if let entry = AccessLogEntry(line: line), entry.time >= since { lines.append(entry) }
            }
        }
        return lines
    }

    // MARK: - File

    private struct LogFileError: Error, CustomStringConvertible {
        let description: String
        init(_ what: String) { description = "\(what): \(String(cString: strerror(errno)))" }
    }

    /// Opens (creating) the file for appending, makes it the user's alone, and cuts off a torn last line.
    private func open(_ path: String) throws {
        let fd = Glibc.open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw LogFileError("cannot open") }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw LogFileError("not a regular file")
        }
        if info.st_mode & 0o077 != 0, fchmod(fd, 0o600) != 0 {
            close(fd)
            throw LogFileError("cannot make it private")
        }
        var length = Int(info.st_size)
        if length > 0, let bytes = Self.read(path), bytes.last != UInt8(ascii: "\n") {
            // Appending after a torn line would glue the next entry to it.
            length = bytes.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
            guard ftruncate(fd, off_t(length)) == 0 else {
                close(fd)
                throw LogFileError("cannot cut off a torn last line")
            }
        }
        descriptor = fd
        size = length
    }

    /// Renames the full file to `access.log.1` and starts a new one. The rename replaces the older file atomically:
    /// a crash leaves either name pointing at a complete file.
    private func rotate(_ path: String) throws {
        close(descriptor)
        descriptor = -1
        guard rename(path, path + Self.rotatedSuffix) == 0 else { throw LogFileError("cannot rotate") }
        try open(path)
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        let dirfd = Glibc.open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirfd >= 0 {
            _ = fsync(dirfd)
            close(dirfd)
        }
    }

    private func append(_ line: [UInt8], durable: Bool) throws {
        var written = 0
        while written < line.count {
            let count = line[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw LogFileError("cannot write") }
            written += count
        }
        size += line.count
        guard !durable || fdatasync(descriptor) == 0 else { throw LogFileError("cannot sync") }
    }

    /// A whole file, or `nil` when it is missing or not a regular file.
    private static func read(_ path: String) -> [UInt8]? {
        let fd = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
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

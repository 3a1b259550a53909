// SPDX-License-Identifier: Apache-2.0
// The POSIX file operations journals need: whole-file reads, exclusive creation, appends, fsync, atomic replace.

#if canImport(Glibc)
import Glibc
#endif

/// An I/O failure with the path and the system's reason (never file contents). Unlike ``JournalDamage`` it says
/// nothing about the journal: the next attempt may succeed.
public struct SyncIOError: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(_ operation: String, _ path: String, errno code: Int32 = errno) {
        description = "\(operation) \(path): \(String(cString: strerror(code)))"
    }

    init(message: String) { description = message }
}

enum SyncFiles {
    /// The whole of a regular file, or `nil` when there is none. Symbolic links are refused (the folder is
    /// written by others); a file that changes while it is read (an engine at work) throws, to be read again later.
    static func read(_ path: String, limit: Int = 1 << 30) throws(SyncIOError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw SyncIOError("cannot open", path)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SyncIOError("cannot inspect", path) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw SyncIOError(message: "\(path) is not a regular file") }
        guard info.st_size <= limit else { throw SyncIOError(message: "\(path) is larger than \(limit) bytes") }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if got < 0 {
                if errno == EINTR { continue }
                throw SyncIOError("cannot read", path)
            }
            if got == 0 { break }
            count += got
        }
        var after = stat()
        guard count == bytes.count, fstat(fd, &after) == 0, after.st_size == info.st_size else {
            throw SyncIOError(message: "\(path) changed while being read")
        }
        return bytes
    }

    /// Creates `path` for writing; fails if anything has the name (no link is ever followed).
    static func createExclusively(_ path: String, flags extra: Int32 = 0) throws(SyncIOError) -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | extra, 0o600)
        guard fd >= 0 else { throw SyncIOError("cannot create", path) }
        return fd
    }

    /// Writes all of `bytes` to `fd`.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(SyncIOError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw SyncIOError("cannot write", path)
            }
            offset += written
        }
    }

    static func sync(_ fd: Int32, path: String) throws(SyncIOError) {
        guard fsync(fd) == 0 else { throw SyncIOError("cannot sync", path) }
    }

    /// Makes a creation or rename inside `directory` durable.
    static func syncDirectory(_ directory: String) throws(SyncIOError) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw SyncIOError("cannot open", directory) }
        defer { close(fd) }
        try sync(fd, path: directory)
    }

    /// Creates `directory` (mode 0700) unless it exists; its parent must exist.
    static func ensureDirectory(_ directory: String) throws(SyncIOError) {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw SyncIOError("cannot create", directory) }
    }

    /// Replaces `path` with `bytes` atomically: a temporary file written and synced, renamed over `path`, the
    /// directory synced. A crash leaves the old file or the new one; a reader never sees a mix.
    static func replace(_ path: String, with bytes: [UInt8], directory: String) throws(SyncIOError) {
        let temporary = path + ".tmp"
        if unlink(temporary) != 0 && errno != ENOENT { throw SyncIOError("cannot remove the stale", temporary) }
        let fd = try createExclusively(temporary)
        do {
            try writeAll(fd, bytes, path: temporary)
            try sync(fd, path: temporary)
            close(fd)
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw SyncIOError("cannot rename over", path, errno: code)
        }
        try syncDirectory(directory)
    }
}

// SPDX-License-Identifier: Apache-2.0
// The few POSIX file operations durability needs: whole-file reads, appends, fsync, atomic replace.

#if canImport(Glibc)
import Glibc
#endif

/// An I/O failure, with the path and the system's reason (never file contents).
struct StorageError: Error, CustomStringConvertible {
    let description: String

    init(_ operation: String, _ path: String, errno code: Int32 = errno) {
        description = "\(operation) \(path): \(String(cString: strerror(code)))"
    }

    init(message: String) { description = message }
}

/// The rename of an atomic replace happened, but syncing the directory failed.
struct DirectorySyncError: Error, CustomStringConvertible {
    let underlying: String
    var description: String { underlying }
}

enum POSIXFile {
    /// The whole of a regular file, read through one descriptor, or `nil` if it does not exist. What a caller
    /// verifies is then exactly what it loads: nothing can be swapped in between two reads. Symbolic links, FIFOs
    /// and devices are refused (a FIFO could hand each reader different bytes; opening it never blocks here), and
    /// so is a file whose size changed while it was read.
    /// - Parameter limit: the largest size accepted; a larger file is refused before it is read.
    /// - Parameter followingLinks: whether a symbolic link at `path` is followed (for a file a person named).
    static func read(_ path: String, limit: Int = .max, followingLinks: Bool = false) throws -> [UInt8]? {
        let fd = open(path, O_RDONLY | (followingLinks ? 0 : O_NOFOLLOW) | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            if errno == ELOOP { throw StorageError(message: "\(path) is a symbolic link; refusing to follow it") }
            throw StorageError("cannot open", path)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StorageError("cannot inspect", path) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw StorageError(message: "\(path) is not a regular file") }
        guard info.st_size <= limit else { throw StorageError(message: "\(path) is larger than \(limit) bytes") }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(info.st_size))
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw StorageError("cannot read", path)
            }
            if count == 0 { break }
            guard bytes.count + count <= limit else { throw StorageError(message: "\(path) grew while being read") }
            bytes += chunk[0..<count]
        }
        var after = stat()
        guard fstat(fd, &after) == 0, after.st_size == bytes.count else {
            throw StorageError(message: "\(path) changed while being read")
        }
        return bytes
    }

    /// Whether anything (a file, a link, even a dangling one) has this name.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Writes all of `bytes` to `fd`.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw StorageError("cannot write", path)
            }
            offset += written
        }
    }

    /// Writes all of `bytes` at `offset` (`pwrite`), leaving the descriptor's position alone.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], at offset: Int, path: String) throws {
        var done = 0
        while done < bytes.count {
            let written = bytes.withUnsafeBytes {
                pwrite(fd, $0.baseAddress! + done, $0.count - done, off_t(offset + done))
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw StorageError("cannot write", path)
            }
            done += written
        }
    }

    static func sync(_ fd: Int32, path: String) throws {
        guard fsync(fd) == 0 else { throw StorageError("cannot sync", path) }
    }

    /// Makes a rename or creation inside `directory` durable.
    static func syncDirectory(_ directory: String) throws {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw StorageError("cannot open", directory) }
        defer { close(fd) }
        try sync(fd, path: directory)
    }

    /// Replaces `path` with `bytes` atomically: a temporary file is written and synced, renamed over `path`, and the
    /// directory synced. A crash leaves the old file or the new one. Any error but ``DirectorySyncError`` means the
    /// old file is still in place; that one means the new file is in place but its rename may not be durable yet.
    static func replace(_ path: String, with bytes: [UInt8], directory: String) throws {
        let temporary = path + temporarySuffix
        try writeSynced(temporary, bytes)
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw StorageError("cannot rename over", path, errno: code)
        }
        do {
            try syncDirectory(directory)
        } catch {
            throw DirectorySyncError(underlying: "\(error)")
        }
    }

    /// Creates `path` (see ``createExclusively(_:)``) holding `bytes`, synced; on failure nothing is left there. The
    /// caller syncs the directory once the name must be durable too.
    static func writeSynced(_ path: String, _ bytes: [UInt8]) throws {
        let fd = try createExclusively(path)
        do {
            try writeAll(fd, bytes, path: path)
            try sync(fd, path: path)
            close(fd)
        } catch {
            close(fd)
            unlink(path)
            throw error
        }
    }

    /// What ``replace(_:with:directory:)`` appends to the name of the file it writes first.
    static let temporarySuffix = ".tmp"

    /// Creates `path` for writing, refusing to reuse anything already there: with `O_EXCL | O_NOFOLLOW` a link
    /// planted at the name cannot redirect the write elsewhere. Something left at the name (by a crash, or planted)
    /// is unlinked, which removes the link and never its target, and creation is tried once more.
    static func createExclusively(_ path: String) throws -> Int32 {
        let flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC
        var fd = open(path, flags, 0o600)
        if fd < 0 && errno == EEXIST {
            guard unlink(path) == 0 || errno == ENOENT else { throw StorageError("cannot remove the stale", path) }
            fd = open(path, flags, 0o600)
        }
        guard fd >= 0 else { throw StorageError("cannot create", path) }
        return fd
    }

    /// Creates `directory` (and parents) with mode 0700 if missing, and tightens it to 0700.
    static func ensureDirectory(_ directory: String) throws {
        var prefix = ""
        for component in directory.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST { throw StorageError("cannot create", prefix) }
        }
        // Only change what needs changing: a read-only mount refuses even a no-op chmod, yet serves reads fine.
        var info = stat()
        guard stat(directory, &info) == 0 else { throw StorageError("cannot inspect", directory) }
        guard info.st_mode & 0o777 != 0o700 else { return }
        guard chmod(directory, 0o700) == 0 else { throw StorageError("cannot set permissions on", directory) }
    }
}

/// Reads a whole regular file the way cofferd reads its own: one open, one read, checked with `fstat` before and
/// after, so what a caller checks is exactly what it uses. For the `coffer` tool's input files.
/// - Returns: the bytes, or `nil` when there is no such file.
/// - Throws: an error naming the path and the reason (not a regular file, larger than `limit`, changed while read).
public func readWholeFile(_ path: String, limit: Int) throws -> [UInt8]? {
    try POSIXFile.read(path, limit: limit, followingLinks: true)
}

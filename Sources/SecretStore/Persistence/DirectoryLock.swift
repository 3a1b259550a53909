// SPDX-License-Identifier: Apache-2.0
// The exclusive hold one store keeps on its data directory for as long as it lives.

#if canImport(Glibc)
import Glibc
#endif

/// Another process (or another store in this one) holds the data directory.
public struct DirectoryInUse: Error, CustomStringConvertible, Sendable {
    public let directory: String
    /// The holder's process id, as it wrote it into the lock file; `nil` if it had not written it yet.
    public let holder: Int32?

    public var description: String {
        "the data directory \(directory) is in use by another cofferd"
            + (holder.map { " (pid \($0))" } ?? "")
    }
}

/// A write lock on `<directory>/lock`, taken with `F_OFD_SETLK`. Two daemons on one directory would each compact
/// from their own memory and drop what the other acknowledged, so the second one must not start.
///
/// An open-file-description lock belongs to the open file, not the process: two stores in one process exclude each
/// other as two processes do, and closing some other descriptor of the file (which drops a classic POSIX lock)
/// does not release it. The kernel releases it when the descriptor closes, including when the holder is killed, so
/// a crash never leaves a stale lock behind. The holder writes its pid into the file only so that the one refused
/// can name it: `F_OFD_GETLK` reports no pid for these locks.
public final class DirectoryLock: Sendable {
    static let fileName = "lock"
    /// `F_OFD_GETLK` and `F_OFD_SETLK`: glibc defines them only under `_GNU_SOURCE`, which Swift's Glibc module
    /// does not set. The kernel gives them these values on every architecture (asm-generic/fcntl.h).
    private static let getOFDLock: Int32 = 36
    private static let setOFDLock: Int32 = 37
    private let fd: Int32

    /// Takes the lock, creating the lock file if needed.
    ///
    /// A read-only directory (a read-only mount, or one this user may not write) cannot be written by anyone who
    /// opens it the same way, so a shared lock on the existing file is enough to keep a writer on a writable view
    /// of the same files away; without a lock file there, there is nothing to hold and no write to protect.
    /// - Throws: ``DirectoryInUse`` when it is held; `StorageError` when the file cannot be opened or locked.
    init(directory: String) throws {
        let path = directory + "/" + Self.fileName
        var fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        var type = F_WRLCK
        if fd < 0 && (errno == EROFS || errno == EACCES) {
            fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            if fd < 0 && errno == ENOENT {
                self.fd = -1
                return
            }
            type = F_RDLCK
        }
        guard fd >= 0 else { throw StorageError("cannot open", path) }
        var request = Self.wholeFile(Int32(type))
        guard fcntl(fd, Self.setOFDLock, &request) == 0 else {
            let code = errno
            close(fd)
            guard code == EAGAIN || code == EACCES else { throw StorageError("cannot lock", path, errno: code) }
            throw DirectoryInUse(directory: directory, holder: Self.recordedHolder(path))
        }
        if type == F_WRLCK {
            // Not synced: the pid only matters while this process lives.
            let line = Array("\(getpid())\n".utf8)
            _ = ftruncate(fd, 0)
            _ = line.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        }
        self.fd = fd
    }

    /// Unlocks before closing: a child process between its fork and its exec holds a copy of every descriptor,
    /// and with it the lock, until the exec closes it; an explicit unlock frees the directory at once all the same.
    deinit {
        guard fd >= 0 else { return }
        var request = Self.wholeFile(Int32(F_UNLCK))
        _ = fcntl(fd, Self.setOFDLock, &request)
        close(fd)
    }

    /// Whether some open file holds the lock on `directory`, and the pid it recorded; `nil` when nobody holds it
    /// (or there is no lock file). Takes nothing: for `coffer doctor`.
    public static func holder(of directory: String) -> (held: Bool, pid: Int32?) {
        let path = directory + "/" + fileName
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return (false, nil) }
        defer { close(fd) }
        var query = wholeFile(F_WRLCK)
        guard fcntl(fd, getOFDLock, &query) == 0, query.l_type != Int16(F_UNLCK) else { return (false, nil) }
        return (true, recordedHolder(path))
    }

    private static func wholeFile(_ type: Int32) -> flock {
        var request = flock()
        request.l_type = Int16(type)
        request.l_whence = Int16(SEEK_SET)
        request.l_start = 0
        request.l_len = 0
        request.l_pid = 0  // F_OFD_* requires 0 here
        return request
    }

    private static func recordedHolder(_ path: String) -> Int32? {
        guard let bytes = try? POSIXFile.read(path, limit: 32) else { return nil }
        return Int32(String(decoding: bytes, as: UTF8.self).split(separator: "\n").first ?? "")
    }
}

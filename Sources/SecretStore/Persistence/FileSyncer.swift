// SPDX-License-Identifier: Apache-2.0
// fsync off the store's thread, one call covering every write that came before it (group commit).

#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// What the store needs of the disk without blocking its own thread: a file synced (and its descriptor closed), or a
/// whole file replaced atomically.
protocol FileSyncing: Sendable {
    /// Syncs the file `fd` refers to and closes `fd`; returns 0 or the `errno` of a failed fsync.
    func sync(_ fd: Int32) async -> Int32

    /// Replaces `path` with `bytes` as ``POSIXFile/replace(_:with:directory:)`` does.
    func replace(_ path: String, with bytes: [UInt8], directory: String) async -> ReplaceOutcome
}

/// How an atomic replacement of a file went.
enum ReplaceOutcome: Sendable, Equatable {
    /// The new file is in place and its rename durable.
    case replaced
    /// The new file is in place, but syncing the directory failed: the rename may not survive a crash.
    case replacedUnsynced(String)
    /// Nothing changed: the old file is in place; the text gives the system's reason.
    case failed(String)

    /// Does the replacement now, on the calling thread.
    static func replacing(_ path: String, with bytes: [UInt8], directory: String) -> ReplaceOutcome {
        do {
            try POSIXFile.replace(path, with: bytes, directory: directory)
            return .replaced
        } catch let error as DirectorySyncError {
            return .replacedUnsynced("\(error)")
        } catch {
            return .failed("\(error)")
        }
    }
}

/// Makes appended bytes durable without blocking the thread the store runs on. cofferd runs the store on the bus
/// connection's loop, so an fsync there would stall every client's lookups for as long as the disk takes.
///
/// Requests queue while an fsync runs; the next round syncs each file of the queue once, which covers every write made
/// to it before that round began, and answers them all. Each request brings its own duplicate of the file's
/// descriptor, closed here: the writer may close or replace its own (a lock, a compaction) while the request waits.
final class FileSyncer: FileSyncing, @unchecked Sendable {
    // @unchecked: `queued` and `roundScheduled` are touched only on `queue`, a serial queue, their one owner.
    private let queue = DispatchQueue(label: "coffer.fsync", qos: .userInitiated)
    /// Whole-file writes (compactions) go here, so a long one does not hold up other files' syncs.
    private let bulk = DispatchQueue(label: "coffer.replace", qos: .utility)
    private var queued: [(fd: Int32, done: CheckedContinuation<Int32, Never>)] = []
    private var roundScheduled = false

    /// Syncs the file `fd` refers to and closes `fd`.
    /// - Returns: 0, or the `errno` of a failed fsync.
    func sync(_ fd: Int32) async -> Int32 {
        await withCheckedContinuation { done in
            queue.async { [self] in
                queued.append((fd, done))
                guard !roundScheduled else { return }
                roundScheduled = true
                queue.async { [self] in round() }
            }
        }
    }

    func replace(_ path: String, with bytes: [UInt8], directory: String) async -> ReplaceOutcome {
        await withCheckedContinuation { done in
            bulk.async { done.resume(returning: .replacing(path, with: bytes, directory: directory)) }
        }
    }

    private func round() {
        roundScheduled = false
        let batch = queued
        queued = []
        // One fsync per file: descriptors of one file share its device and inode.
        var results: [FileIdentity: Int32] = [:]
        for request in batch {
            var info = stat()
            let identity = fstat(request.fd, &info) == 0 ? FileIdentity(info) : nil
            let result: Int32
            if let identity, let known = results[identity] {
                result = known
            } else {
                result = fsync(request.fd) == 0 ? 0 : errno
                if let identity { results[identity] = result }
            }
            close(request.fd)
            request.done.resume(returning: result)
        }
    }

    private struct FileIdentity: Hashable {
        let device: UInt64
        let inode: UInt64

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }
}

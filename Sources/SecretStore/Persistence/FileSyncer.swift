// SPDX-License-Identifier: Apache-2.0
// fsync off the store's thread, one call covering every write that came before it (group commit).

#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// What the store needs of durability: a file synced (and its descriptor closed) without blocking the caller.
protocol FileSyncing: Sendable {
    /// Syncs the file `fd` refers to and closes `fd`; returns 0 or the `errno` of a failed fsync.
    func sync(_ fd: Int32) async -> Int32
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

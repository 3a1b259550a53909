// SPDX-License-Identifier: Apache-2.0
// Durability off the store's thread: syncs on the process's sync thread, whole-file replacements on a queue.

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

    /// Syncs several files a change must be durable in (a collection file and a synchronized collection's
    /// journal), closing each descriptor; returns each result, in order.
    func sync(_ fds: [Int32]) async -> [Int32]
}

extension FileSyncing {
    /// One after the other; ``FileSyncer`` queues them together instead.
    func sync(_ fds: [Int32]) async -> [Int32] {
        var results: [Int32] = []
        for fd in fds { results.append(await sync(fd)) }
        return results
    }
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
/// connection's loop, so an fsync there would stall every client's lookups for as long as the disk takes. Syncs go
/// to the process's ``SyncThread`` (group commit, lower priority); whole-file replacements to a queue of their own.
final class FileSyncer: FileSyncing {
    /// Whole-file writes (compactions) go here, so a long one does not hold up other files' syncs.
    private let bulk = DispatchQueue(label: "coffer.replace", qos: .utility)

    /// Syncs the file `fd` refers to and closes `fd`.
    /// - Returns: 0, or the `errno` of a failed fsync.
    func sync(_ fd: Int32) async -> Int32 {
        await SyncThread.shared.sync([fd])[0]
    }

    /// Queued together, so that one round of the sync thread takes them all: a change of a synchronized
    /// collection waits for one round, not one per file.
    func sync(_ fds: [Int32]) async -> [Int32] {
        await SyncThread.shared.sync(fds)
    }

    func replace(_ path: String, with bytes: [UInt8], directory: String) async -> ReplaceOutcome {
        await withCheckedContinuation { done in
            bulk.async { done.resume(returning: .replacing(path, with: bytes, directory: directory)) }
        }
    }
}

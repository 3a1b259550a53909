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

    /// Begins syncing the files `fds` refer to, closing each descriptor, and returns at once, so that a change
    /// durable in several files (a synchronized collection's journal beside its collection file) waits for the
    /// others meanwhile.
    func begin(_ fds: [Int32]) -> SyncUnderWay
}

extension FileSyncing {
    /// One after the other in a task of its own; ``FileSyncer`` queues them on the sync thread instead.
    func begin(_ fds: [Int32]) -> SyncUnderWay {
        SyncUnderWay(Task {
            var results: [Int32] = []
            for fd in fds { results.append(await sync(fd)) }
            return results
        })
    }
}

/// Syncs begun by ``FileSyncing/begin(_:)``.
struct SyncUnderWay: Sendable {
    private enum Source {
        case thread(SyncThread, SyncThread.Request)
        case task(Task<[Int32], Never>)
    }

    private let source: Source

    init(_ thread: SyncThread, _ request: SyncThread.Request) { source = .thread(thread, request) }

    init(_ task: Task<[Int32], Never>) { source = .task(task) }

    /// Waits until every file is synced.
    /// - Returns: for each, 0 or the `errno` of its failed fsync.
    nonisolated(nonsending) func answers() async -> [Int32] {
        switch source {
        case .thread(let thread, let request): await thread.answers(of: request)
        case .task(let task): await task.value
        }
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

    func begin(_ fds: [Int32]) -> SyncUnderWay {
        SyncUnderWay(SyncThread.shared, SyncThread.shared.begin(fds))
    }

    func replace(_ path: String, with bytes: [UInt8], directory: String) async -> ReplaceOutcome {
        await withCheckedContinuation { done in
            bulk.async { done.resume(returning: .replacing(path, with: bytes, directory: directory)) }
        }
    }
}

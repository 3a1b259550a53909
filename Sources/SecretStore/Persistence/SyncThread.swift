// SPDX-License-Identifier: Apache-2.0
// The thread durable writes wait on: one per process, at a lower scheduling priority than the threads that answer.

#if canImport(Glibc)
import Glibc
#endif

/// Runs every fsync of the process on one thread, in rounds (group commit): requests queue while a round runs; the
/// next round syncs each file of the queue once, which covers every write made to it before that round began, and
/// answers them all. Each request brings its own duplicate of the file's descriptor, closed here: the writer may close
/// or replace its own (a lock, a compaction) while the request waits.
///
/// An fsync costs CPU as well as waiting (the file system's journal, and on a virtual machine the virtual disk's
/// driver). On a small machine that CPU competes with the thread answering lookups, the bus daemon and the clients,
/// so this thread runs at a lower priority (``niceness``): a lookup's wake-up is not queued behind a sync. Writes lose
/// nothing by it: each is acknowledged when its sync ends, as before.
final class SyncThread: @unchecked Sendable {
    // @unchecked: `queued` is read and written only with `mutex` held; the mutex and condition are set up once in
    // init and live as long as the process (the thread never ends).

    /// How much lower than the process the thread runs (`setpriority`, 0 to 19). Moderate, so that writes still get
    /// their share of a machine that is busy with something else.
    static let niceness: Int32 = 5

    static let shared = SyncThread()

    /// The files one caller needs durable, answered together.
    private typealias Request = (fds: [Int32], done: CheckedContinuation<[Int32], Never>)
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var queued: [Request] = []

    private init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        let retained = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { argument in
            Unmanaged<SyncThread>.fromOpaque(argument!).takeRetainedValue().run()
            return nil
        }, retained)
        precondition(result == 0, "pthread_create failed: \(result)")
        pthread_detach(thread)
    }

    /// Syncs the files `fds` refer to, in one round, and closes each.
    /// - Returns: for each, 0 or the `errno` of a failed fsync.
    func sync(_ fds: [Int32]) async -> [Int32] {
        await withCheckedContinuation { done in
            pthread_mutex_lock(mutex)
            queued.append((fds, done))
            let wasIdle = queued.count == 1
            pthread_mutex_unlock(mutex)
            // A round under way takes everything queued before it looks again; only an idle thread needs waking.
            if wasIdle { pthread_cond_signal(condition) }
        }
    }

    private func run() {
        // On Linux `who = 0` names the calling thread, not the whole process.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.niceness)
        while true {
            pthread_mutex_lock(mutex)
            while queued.isEmpty { pthread_cond_wait(condition, mutex) }
            let round = queued
            queued = []
            pthread_mutex_unlock(mutex)
            Self.syncOnce(round)
        }
    }

    /// One fsync per file: descriptors of one file share its device and inode.
    private static func syncOnce(_ round: [Request]) {
        var results: [FileIdentity: Int32] = [:]
        for request in round {
            var answers: [Int32] = []
            for fd in request.fds {
                var info = stat()
                let identity = fstat(fd, &info) == 0 ? FileIdentity(info) : nil
                if let identity, let known = results[identity] {
                    answers.append(known)
                } else {
                    let result = fsync(fd) == 0 ? 0 : errno
                    if let identity { results[identity] = result }
                    answers.append(result)
                }
                close(fd)
            }
            request.done.resume(returning: answers)
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

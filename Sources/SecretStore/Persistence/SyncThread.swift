// SPDX-License-Identifier: Apache-2.0
// The threads durable writes wait on: a few per process, at a lower scheduling priority than the threads that answer.

#if canImport(Glibc)
import Glibc
#endif

/// Runs every fsync of the process on a small fixed set of threads (lanes), with group commit per file: a lane takes
/// a queued file that no lane is syncing, together with every request queued for that same file, syncs it once
/// (which covers every write made to it before the sync began) and answers them all. A request that arrives for a
/// file while it is being synced waits for its next sync. Each request brings its own duplicate of each file's
/// descriptor, closed here: the writer may close or replace its own (a lock, a compaction) while the request waits.
///
/// Distinct files are synced at the same time. A change of a synchronized collection must be durable in the
/// collection file, the generation ledger (after the file) and the journal: with one thread these were three fsyncs
/// one after the other; with two lanes the journal's runs beside the other two, and their waits for the disk
/// overlap.
///
/// An fsync costs CPU as well as waiting (the file system's journal, and on a virtual machine the virtual disk's
/// driver). On a small machine that CPU competes with the thread answering lookups, the bus daemon and the clients,
/// so the lanes run at a lower priority (``niceness``): a lookup's wake-up is not queued behind a sync. Writes lose
/// nothing by it: each is acknowledged when its sync ends, as before.
final class SyncThread: @unchecked Sendable {
    // @unchecked: `queued`, `inFlight`, `idle`, `woken` and each request's answers are read and written only with
    // `mutex` held; the mutex and conditions are set up once in init and live as long as the process (the lanes
    // never end).

    /// How much lower than the process the lanes run (`setpriority`, 0 to 19). Moderate, so that writes still get
    /// their share of a machine that is busy with something else.
    static let niceness: Int32 = 5

    /// Two: the most files one change waits on at a time (its collection file or the ledger, and a journal). More
    /// would only add threads contending for one disk.
    static let lanes = 2

    static let shared = SyncThread(lanes: lanes)

    /// The files one caller needs durable, answered together once each is synced: begun by ``begin(_:)``, awaited
    /// by ``answers(of:)``, the two in either order.
    final class Request: @unchecked Sendable {
        // @unchecked: every field is read and written only with the sync thread's `mutex` held, until `remaining`
        // is 0; then nothing writes it any more.
        fileprivate var answers: [Int32]
        fileprivate var remaining: Int
        /// The caller waiting for the answers, once it waits.
        fileprivate var waiting: CheckedContinuation<[Int32], Never>?

        fileprivate init(count: Int) {
            answers = Array(repeating: 0, count: count)
            remaining = count
        }
    }

    /// One file of a request.
    private struct Entry {
        let fd: Int32
        /// `nil` when `fstat` failed: the entry is then synced alone (and its fsync reports why).
        let identity: FileIdentity?
        let request: Request
        let index: Int
    }

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// One per lane, so that the lane to wake is chosen (``idleLanesToWake(_:)``).
    private let wakeups: UnsafeMutablePointer<pthread_cond_t>
    /// The lanes waiting for work, the one that went idle last at the end.
    private var idle: [Int] = []
    /// For each lane, whether it was taken off ``idle`` to work since it began to wait (its wake-up's condition).
    private var woken: [Bool]
    private var queued: [Entry] = []
    /// The files a lane is syncing now.
    private var inFlight: Set<FileIdentity> = []
    private let syncFile: @Sendable (Int32) -> Int32

    /// - Parameters:
    ///   - lanes: how many files are synced at once.
    ///   - syncFile: makes the file durable; returns 0 or an `errno` (tests stand in a disk they control).
    init(lanes: Int, syncFile: @escaping @Sendable (Int32) -> Int32 = { fsync($0) == 0 ? 0 : errno }) {
        precondition(lanes > 0, "a sync thread needs a lane")
        self.syncFile = syncFile
        pthread_mutex_init(mutex, nil)
        wakeups = .allocate(capacity: lanes)
        woken = Array(repeating: false, count: lanes)
        for lane in 0..<lanes {
            pthread_cond_init(wakeups + lane, nil)
            let retained = Unmanaged.passRetained(LaneStart(thread: self, lane: lane)).toOpaque()
            var thread = pthread_t()
            let result = pthread_create(&thread, nil, { argument in
                let start = Unmanaged<LaneStart>.fromOpaque(argument!).takeRetainedValue()
                start.thread.run(lane: start.lane)
                return nil
            }, retained)
            precondition(result == 0, "pthread_create failed: \(result)")
            pthread_detach(thread)
        }
    }

    /// Syncs the files `fds` refer to, each at the latest in the next sync of it that begins, and closes each.
    /// - Returns: for each, 0 or the `errno` of its failed fsync.
    func sync(_ fds: [Int32]) async -> [Int32] {
        await answers(of: begin(fds))
    }

    /// Queues the files `fds` refer to for syncing, as ``sync(_:)`` does, and returns at once: a change that must be
    /// durable in several files waits for the others meanwhile, then for ``answers(of:)``, with no task of its own.
    func begin(_ fds: [Int32]) -> Request {
        let request = Request(count: fds.count)
        guard !fds.isEmpty else { return request }
        // Outside the lock: the lanes only compare identities.
        let identities = fds.map { fd -> FileIdentity? in
            var info = stat()
            return fstat(fd, &info) == 0 ? FileIdentity(info) : nil
        }
        pthread_mutex_lock(mutex)
        for (index, fd) in fds.enumerated() {
            queued.append(Entry(fd: fd, identity: identities[index], request: request, index: index))
        }
        // As many lanes as files, so that they start together; a lane finding nothing free to take waits again.
        let lanes = idleLanesToWake(fds.count)
        pthread_mutex_unlock(mutex)
        wake(lanes)
        return request
    }

    /// Waits, on the caller's executor, until every file of `request` is synced.
    /// - Returns: for each file, 0 or the `errno` of its failed fsync.
    nonisolated(nonsending) func answers(of request: Request) async -> [Int32] {
        await withCheckedContinuation { waiting in
            pthread_mutex_lock(mutex)
            guard request.remaining > 0 else {
                pthread_mutex_unlock(mutex)
                waiting.resume(returning: request.answers)
                return
            }
            request.waiting = waiting
            pthread_mutex_unlock(mutex)
        }
    }

    /// Takes up to `count` idle lanes to ``wake(_:)``, the one that went idle last first: a lone file is synced by
    /// the same lane each time, whose thread and caches are warm, and a second lane runs only when a second file is
    /// there. Called with `mutex` held.
    private func idleLanesToWake(_ count: Int) -> [Int] {
        var lanes: [Int] = []
        for _ in 0..<min(count, idle.count) {
            let lane = idle.removeLast()
            woken[lane] = true
            lanes.append(lane)
        }
        return lanes
    }

    /// Signals lanes after `mutex` is released, so that a woken lane does not at once wait for the waker's lock.
    private func wake(_ lanes: [Int]) {
        for lane in lanes { pthread_cond_signal(wakeups + lane) }
    }

    private final class LaneStart {
        let thread: SyncThread
        let lane: Int

        init(thread: SyncThread, lane: Int) {
            self.thread = thread
            self.lane = lane
        }
    }

    private func run(lane: Int) {
        // On Linux `who = 0` names the calling thread, not the whole process.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.niceness)
        pthread_mutex_lock(mutex)
        while true {
            guard let taken = takeFile() else {
                idle.append(lane)
                woken[lane] = false
                while !woken[lane] { pthread_cond_wait(wakeups + lane, mutex) }
                continue
            }
            pthread_mutex_unlock(mutex)
            let result = syncFile(taken[0].fd)
            for entry in taken { close(entry.fd) }
            pthread_mutex_lock(mutex)
            if let identity = taken[0].identity { inFlight.remove(identity) }
            var answered: [(CheckedContinuation<[Int32], Never>, [Int32])] = []
            for entry in taken {
                let request = entry.request
                request.answers[entry.index] = result
                request.remaining -= 1
                // A request nobody waits for yet keeps its answers for ``answers(of:)``.
                if request.remaining == 0, let waiting = request.waiting {
                    request.waiting = nil
                    answered.append((waiting, request.answers))
                }
            }
            // A file that waited for this one's sync to end may be free for another idle lane now.
            let lanes = queued.isEmpty ? [] : idleLanesToWake(1)
            pthread_mutex_unlock(mutex)
            wake(lanes)
            for (waiting, answers) in answered { waiting.resume(returning: answers) }
            pthread_mutex_lock(mutex)
        }
    }

    /// Takes the oldest queued file no lane is syncing, with every entry queued for it (group commit), and marks it
    /// in flight. Called with `mutex` held.
    private func takeFile() -> [Entry]? {
        guard let first = queued.firstIndex(where: { $0.identity.map { !inFlight.contains($0) } ?? true }) else {
            return nil
        }
        guard let identity = queued[first].identity else { return [queued.remove(at: first)] }
        let taken = queued.filter { $0.identity == identity }
        queued.removeAll { $0.identity == identity }
        inFlight.insert(identity)
        return taken
    }

    /// Descriptors of one file share its device and inode.
    private struct FileIdentity: Hashable {
        let device: UInt64
        let inode: UInt64

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// One dedicated thread per connection that runs actor jobs and polls the libdbus file descriptors.

internal import CDBus
import Glibc
import Synchronization

/// A serial executor backed by one dedicated thread that runs queued jobs and `poll()`s an eventfd plus the
/// descriptors of its ``BusLoopSource``.
///
/// Enqueuing from another thread writes the eventfd, so the loop never sleeps on work that is waiting. After
/// ``stop()`` the thread exits once its queue is empty; jobs enqueued later (for example an actor method called
/// after `close()`) start a short-lived thread that drains the queue, so the executor keeps working.
final class BusLoop: SerialExecutor, @unchecked Sendable {
    // @unchecked Sendable: cross-thread state lives in `shared` (a Mutex); `source` is touched on the loop thread only.

    private enum Job {
        case swift(UnownedJob)
        /// A job of a task that prefers this loop as its task executor (see ``BusLoopTaskExecutor``).
        case task(UnownedJob)
        case closure(@Sendable () -> Void)
    }

    private struct Shared {
        var jobs: [Job] = []
        /// Jobs of background-priority tasks (a server's signals, say): they run when no other job is queued and
        /// the sockets have been read, so a call that arrives meanwhile is answered before them.
        var backgroundJobs: [Job] = []
        /// The loop is (about to be) blocked in `poll`; an enqueuer must write the eventfd.
        var sleeping = false
        var stopped = false
        var threadRunning = false
        /// The thread currently running jobs.
        var runner: pthread_t?
    }

    private enum Wake { case none, eventfd, spawn }
    private enum Next { case exit, runJobs, runBackgroundJobs, pollAndWait }

    private let shared = Mutex(Shared())
    /// This loop's thread as a task executor. Set once in init, before the thread starts, and never changed.
    private(set) var taskExecutor: BusLoopTaskExecutor!
    private let wakeFD: Int32
    private let name: String
    /// The polled I/O; loop thread only.
    private var source: (any BusLoopSource)?

    /// Starts the loop thread.
    /// - Parameter name: the thread name (truncated to 15 bytes by the kernel).
    init(name: String = "coffer.dbus") {
        self.name = name
        let fd = cdbus_eventfd_create()
        precondition(fd >= 0, "eventfd failed: errno \(errno)")
        wakeFD = fd
        taskExecutor = BusLoopTaskExecutor(loop: self)
        shared.withLock { $0.threadRunning = true }
        spawnThread()
    }

    deinit { close(wakeFD) }

    // MARK: - SerialExecutor

    func enqueue(_ job: consuming ExecutorJob) {
        let background = Self.isBackground(job.priority)
        submit(.swift(UnownedJob(job)), background: background)
    }

    /// Whether a job of this priority waits until nothing else is to be done (see ``Shared/backgroundJobs``).
    static func isBackground(_ priority: JobPriority) -> Bool {
        priority.rawValue != 0 && priority.rawValue <= JobPriority(TaskPriority.background).rawValue
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func checkIsolated() {
        precondition(isCurrentThread, "not on the D-Bus loop thread")
    }

    func isIsolatingCurrentContext() -> Bool? {
        isCurrentThread
    }

    /// Whether the caller is running on the thread that currently runs this loop's jobs.
    var isCurrentThread: Bool {
        let me = pthread_self()
        return shared.withLock { state in state.runner.map { pthread_equal($0, me) != 0 } ?? false }
    }

    // MARK: - Scheduling

    /// Runs `body` on the loop thread, after the jobs already queued.
    func enqueueTask(_ job: UnownedJob, background: Bool = false) {
        submit(.task(job), background: background)
    }

    func execute(_ body: @escaping @Sendable () -> Void) {
        submit(.closure(body))
    }

    /// Runs `body` on the loop thread and returns its result.
    func perform<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            execute { continuation.resume(with: Result(catching: body)) }
        }
    }

    /// Makes the loop poll `source`. Loop thread only.
    func attach(_ source: any BusLoopSource) {
        checkIsolated()
        self.source = source
    }

    /// Stops polling the source; the thread exits when its queue is empty. Loop thread only.
    func stop() {
        checkIsolated()
        source = nil
        shared.withLock { $0.stopped = true }
    }

    /// Wakes the loop from `poll` (libdbus's wakeup-main and dispatch-status callbacks). Only a loop that sleeps, or
    /// is about to, needs the eventfd: a running loop prepares its poll set and dispatches again before it sleeps.
    /// libdbus calls this from the loop thread itself several times per message, and each needless write cost a
    /// syscall plus an extra `poll` and `read`.
    func wake() {
        let mustWrite = shared.withLock { state in
            guard state.sleeping else { return false }
            state.sleeping = false
            return true
        }
        if mustWrite { writeEventFD() }
    }

    private func writeEventFD() {
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { write(wakeFD, $0.baseAddress, 8) }
    }

    private func submit(_ job: Job, background: Bool = false) {
        let wake = shared.withLock { state -> Wake in
            if background { state.backgroundJobs.append(job) } else { state.jobs.append(job) }
            if !state.threadRunning {
                state.threadRunning = true
                return .spawn
            }
            if state.sleeping {
                state.sleeping = false
                return .eventfd
            }
            return .none
        }
        switch wake {
        case .none: break
        case .eventfd: writeEventFD()
        case .spawn: spawnThread()
        }
    }

    // MARK: - Thread

    private func spawnThread() {
        let start = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { argument in
            let loop = Unmanaged<BusLoop>.fromOpaque(argument!).takeRetainedValue()
            loop.run()
            return nil
        }, start)
        precondition(result == 0, "pthread_create failed: \(result)")
        pthread_detach(thread)
    }

    private func run() {
        cdbus_set_thread_name(name)
        shared.withLock { $0.runner = pthread_self() }
        var descriptors: [pollfd] = []
        // Turns run back to back while work is queued; the sockets are still looked at every few turns, so a
        // stream of jobs cannot starve I/O. A call hops between actors several times, and polling between each
        // hop cost a syscall apiece.
        var busyTurns = 0
        var moreToDispatch = false
        while true {
            run(shared.withLock { state -> [Job] in
                let jobs = state.jobs
                state.jobs.removeAll(keepingCapacity: true)
                return jobs
            })
            moreToDispatch = source?.dispatch() ?? false
            let hasSource = source != nil
            let next = shared.withLock { state -> Next in
                if state.stopped && !hasSource {
                    guard state.jobs.isEmpty && state.backgroundJobs.isEmpty else { return .runJobs }
                    state.threadRunning = false
                    state.runner = nil
                    return .exit
                }
                guard state.jobs.isEmpty && !moreToDispatch else { return .runJobs }
                guard state.backgroundJobs.isEmpty else { return .runBackgroundJobs }
                state.sleeping = true
                return .pollAndWait
            }
            switch next {
            case .exit: return
            case .runJobs:
                busyTurns += 1
                if busyTurns >= Self.busyTurnsBetweenPolls {
                    busyTurns = 0
                    if hasSource { pollOnce(&descriptors, wait: false) }
                    // Background jobs wait for a quiet moment, but never longer than this under a steady stream.
                    run(shared.withLock { state -> [Job] in
                        let jobs = state.backgroundJobs
                        state.backgroundJobs.removeAll(keepingCapacity: true)
                        return jobs
                    })
                }
            case .runBackgroundJobs:
                // A last look at the sockets first: a call that came in meanwhile is read and dispatched, and its
                // jobs go before the background ones.
                busyTurns = 0
                if hasSource {
                    pollOnce(&descriptors, wait: false)
                    moreToDispatch = source?.dispatch() ?? false
                }
                let background = shared.withLock { state -> [Job] in
                    guard state.jobs.isEmpty && !moreToDispatch else { return [] }
                    let jobs = state.backgroundJobs
                    state.backgroundJobs.removeAll(keepingCapacity: true)
                    return jobs
                }
                run(background)
            case .pollAndWait:
                busyTurns = 0
                pollOnce(&descriptors, wait: true)
            }
        }
    }

    private func run(_ jobs: [Job]) {
        for job in jobs {
            switch job {
            case .swift(let job): job.runSynchronously(on: asUnownedSerialExecutor())
            case .task(let job): job.runSynchronously(on: taskExecutor.asUnownedTaskExecutor())
            case .closure(let body): body()
            }
        }
    }

    /// How many turns with queued work may run before the sockets are polled, and background jobs run, anyway.
    private static let busyTurnsBetweenPolls = 16

    /// Polls the eventfd and the source's descriptors once, then lets the source handle what is ready.
    private func pollOnce(_ descriptors: inout [pollfd], wait: Bool) {
        descriptors.removeAll(keepingCapacity: true)
        descriptors.append(pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0))
        var timeout = source?.preparePoll(into: &descriptors) ?? -1
        if !wait { timeout = 0 }
        let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
        shared.withLock { $0.sleeping = false }
        guard ready >= 0 else {
            precondition(errno == EINTR || errno == EAGAIN, "poll failed: errno \(errno)")
            return
        }
        if descriptors[0].revents != 0 {
            var counter: UInt64 = 0
            _ = withUnsafeMutableBytes(of: &counter) { read(wakeFD, $0.baseAddress, 8) }
        }
        source?.handlePoll(descriptors[1...])
    }
}

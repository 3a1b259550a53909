// SPDX-License-Identifier: Apache-2.0
// A dedicated thread that runs the library's async work, so the blocking SecItem functions never wait on the
// Swift concurrency pool.

import Dispatch
import Foundation
import Synchronization

/// A task executor backed by one thread of its own.
///
/// The `SecItem…` functions are synchronous, like Apple's, but the client is async. Blocking the caller while a
/// task on the global pool does the work deadlocks when every pool thread (two on a two-core machine) is itself
/// blocked in a `SecItem…` call. So each operation runs as a task that *prefers* this executor: its nonisolated
/// code and default actors run here, the `Connection` actor runs on the D-Bus loop thread, and no step needs a
/// pool thread. Calling `SecItem…` from async code is therefore safe (it blocks that one thread, as it does on
/// Apple platforms). The client's signal pump, which delivers a prompt's completion, runs on a second instance
/// (``signals``): with every pool thread blocked in a `SecItem…` call waiting for that completion, a pump on the
/// pool could never run.
final class OperationThread: TaskExecutor {
    /// Runs the operations.
    static let shared = OperationThread(name: "coffer.keychain")
    /// Runs the clients' signal pumps.
    static let signals = OperationThread(name: "coffer.keychain.signals")

    private let jobs = Mutex<[UnownedJob]>([])
    // Counts queued jobs; the thread sleeps on it between jobs.
    private let available = DispatchSemaphore(value: 0)

    private init(name: String) {
        let thread = Thread { [self] in runLoop() }
        thread.name = name
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        jobs.withLock { $0.append(unowned) }
        available.signal()
    }

    private func runLoop() -> Never {
        while true {
            available.wait()
            let job = jobs.withLock { $0.removeFirst() }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// Runs `operation` on this executor and blocks the calling thread until it finishes.
    /// - Parameter operation: the async work; it must not call back into a blocking `SecItem…` function.
    /// - Returns: its result.
    static func runBlocking<T: Sendable>(_ operation: @escaping @Sendable () async -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<T?>(nil)
        Task(executorPreference: shared) {
            let value = await operation()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }
}

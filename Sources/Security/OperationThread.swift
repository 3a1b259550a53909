// SPDX-License-Identifier: Apache-2.0
// A thread of the library's own that opens the shared connections, so connecting never waits on the Swift
// concurrency pool.

import Dispatch
import Foundation
import Synchronization

/// A task executor backed by one thread of its own, used only while a shared connection is being opened.
///
/// The `SecItem…` functions block their caller, and callers may be pool threads (two on a two-core machine, all of
/// them possibly blocked in `SecItem…` calls). Once a connection is open its loop thread runs every operation
/// (see ``OperationContext/performBlocking(_:interaction:_:)``), but before that there is no loop to run on; the
/// first call's connect runs here instead, so it needs no pool thread either.
final class OperationThread: TaskExecutor {
    /// Opens the shared connections.
    static let shared = OperationThread(name: "coffer.keychain")

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
}

// SPDX-License-Identifier: Apache-2.0
// A connection's loop thread as a task executor, so a server can run its calls where the messages arrive.

/// Runs the jobs of tasks that prefer it (`withTaskExecutorPreference`) on the bus loop thread. Their nonisolated
/// code and the code of default actors they call then run there too, so a call travels from libdbus to the
/// handler, the model and back to libdbus without waking another thread: on a small machine each such wake-up costs
/// more than the work of a typical Secret Service call. Slow work (key derivation) must opt out by preferring
/// `globalConcurrentExecutor`.
public final class BusLoopTaskExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: the loop is immutable here and thread-safe itself.
    private unowned let loop: BusLoop

    init(loop: BusLoop) {
        self.loop = loop
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let background = BusLoop.isBackground(job.priority)
        loop.enqueueTask(UnownedJob(job), background: background)
    }

    /// Whether the caller runs on this loop's thread. Code that blocks its thread until work on this executor
    /// finishes checks it first: on the loop thread that wait could never end.
    public var isCurrentThread: Bool { loop.isCurrentThread }
}

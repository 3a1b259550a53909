// SPDX-License-Identifier: Apache-2.0
// How a daemon under test ended, and a monitor that lets async code wait for a child process to exit.

import Foundation
import Synchronization

/// How the daemon under test ended.
public enum DaemonExit: Sendable, Hashable, CustomStringConvertible {
    /// The process exited with this status (or, in process, the service returned: status 0).
    case exited(Int32)
    /// The process was killed by this signal.
    case signalled(Int32)
    /// The in-process service threw; the text describes the error.
    case failed(String)

    public var description: String {
        switch self {
        case .exited(let status): "exited with status \(status)"
        case .signalled(let signal): "killed by signal \(signal)"
        case .failed(let error): "failed: \(error)"
        }
    }
}

/// Records how a daemon ended (a child's `Process.terminationHandler`, or the in-process service task) and wakes
/// async waiters; unlike awaiting a task's value, waiting here ends when the waiting task is cancelled.
final class ProcessExitMonitor: Sendable {
    private struct State {
        var exit: DaemonExit?
        var waiters: [UInt64: CheckedContinuation<DaemonExit?, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    /// A monitor fed through ``record(_:)``.
    init() {}

    /// Installs the termination handler; call before `process.run()`.
    init(watching process: Process) {
        process.terminationHandler = { [self] finished in
            let exit: DaemonExit = finished.terminationReason == .uncaughtSignal
                ? .signalled(finished.terminationStatus) : .exited(finished.terminationStatus)
            record(exit)
        }
    }

    /// The exit, if it happened.
    var exit: DaemonExit? { state.withLock { $0.exit } }

    /// Records the exit (the first record wins) and wakes every waiter.
    func record(_ exit: DaemonExit) {
        let waiters = state.withLock { state in
            guard state.exit == nil else { return [CheckedContinuation<DaemonExit?, Never>]() }
            state.exit = exit
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: exit) }
    }

    /// Suspends until the process exits; `nil` when the waiting task is cancelled first.
    func wait() async -> DaemonExit? {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let immediate: DaemonExit?? = state.withLock { state in
                    if let exit = state.exit { return .some(exit) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiters[id] = continuation
                    return .none
                }
                if case .some(let result) = immediate { continuation.resume(returning: result) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: nil)
        }
    }
}

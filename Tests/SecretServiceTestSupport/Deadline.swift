// SPDX-License-Identifier: Apache-2.0
// An upper bound on how long a test waits for an event, so a missing signal fails the test instead of hanging it.

import Dispatch
import Synchronization

/// The wait outlived its deadline.
public struct DeadlineExceeded: Error, CustomStringConvertible {
    /// What was being waited for.
    public let what: String
    /// The deadline.
    public let limit: Duration

    /// - Parameters:
    ///   - what: what was being waited for.
    ///   - limit: the deadline.
    public init(what: String, limit: Duration) {
        self.what = what
        self.limit = limit
    }

    public var description: String { "timed out after \(limit) waiting for \(what)" }
}

/// Runs `body`, failing with ``DeadlineExceeded`` if it has not finished within `limit`.
///
/// This is a guard against hangs, not a synchronisation device: `body` waits for the real event (a signal, a
/// process exit) and normally finishes long before the limit. On timeout `body` is cancelled.
/// - Parameters:
///   - limit: the longest acceptable wait.
///   - what: a description for the error.
///   - body: the wait.
/// - Returns: what `body` returns.
/// - Throws: ``DeadlineExceeded``, or what `body` throws.
public func withDeadline<T: Sendable>(_ limit: Duration = .seconds(20), waitingFor what: String,
                                      _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            _ = await deadlinePassed(after: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw DeadlineExceeded(what: what, limit: limit)
        }
        return value
    }
}

/// A timer event: returns `true` once `limit` has passed, or `false` as soon as the task is cancelled (the real
/// event won the race). It is the losing side of every wait in the harness, never a way to let time pass.
public func deadlinePassed(after limit: Duration) async -> Bool {
    let timer = DeadlineTimer()
    return await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
            timer.start(after: limit, continuation)
        }
    } onCancel: {
        timer.fire(false)
    }
}

/// Resumes its continuation exactly once: when the dispatch timer fires, or on cancellation.
private final class DeadlineTimer: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<Bool, Never>?, done: Bool)>((nil, false))

    func start(after limit: Duration, _ continuation: CheckedContinuation<Bool, Never>) {
        let alreadyCancelled = state.withLock { state -> Bool in
            if state.done { return true }
            state.continuation = continuation
            return false
        }
        if alreadyCancelled {
            continuation.resume(returning: false)
            return
        }
        let (seconds, attoseconds) = limit.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { self.fire(true) }
    }

    func fire(_ elapsed: Bool) {
        let continuation = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            state.done = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: elapsed)
    }
}

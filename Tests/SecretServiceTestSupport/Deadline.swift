// SPDX-License-Identifier: Apache-2.0
// An upper bound on how long a test waits for an event, so a missing signal fails the test instead of hanging it.

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
            try? await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw DeadlineExceeded(what: what, limit: limit)
        }
        return value
    }
}

// SPDX-License-Identifier: Apache-2.0
// The single consumer of a connection's incoming messages, fanning signals out to subscribers.

import DBusWire

/// Owns the one iteration of `Connection.messages` (an `AsyncStream`, which allows a single consumer) and hands
/// each signal to every subscriber whose filters match.
///
/// Subscribers register *before* they act (for example before calling `Prompt()`), and each gets its own
/// unbounded stream, so a signal that arrives before the subscriber starts waiting is kept, never lost.
actor SignalRouter {
    private struct Subscriber {
        var filters: [SignalFilter]
        var continuation: AsyncStream<Message>.Continuation
    }

    private var subscribers: [UInt64: Subscriber] = [:]
    private var nextID: UInt64 = 0
    private var finished = false

    /// Starts the pump over `messages`.
    ///
    /// This is the client's only long-lived task: `Connection.messages` must be consumed by exactly one iterator
    /// for as long as the connection lives, and nothing else in the client outlives a single call. The task ends
    /// when the stream ends (the connection closed); cancelling it ends it early.
    /// - Parameters:
    ///   - messages: the connection's incoming messages.
    ///   - executor: where the pump (and this actor) runs; `nil` is the global concurrency pool. Callers that block
    ///     pool threads while waiting for a prompt (the synchronous SecItem functions) give a thread of their own,
    ///     or the signal that ends the prompt could never be delivered.
    /// - Returns: the pump task, to cancel on close.
    nonisolated func start(pumping messages: AsyncStream<Message>, on executor: (any TaskExecutor)? = nil)
        -> Task<Void, Never> {
        Task(executorPreference: executor) { [self] in
            for await message in messages where message.kind == .signal {
                await deliver(message)
            }
            await finishAll()
        }
    }

    /// Registers a subscriber.
    /// - Parameter filters: the signals wanted (any filter matching is enough).
    /// - Returns: the subscriber's id and its stream (already finished if the connection is gone).
    func register(_ filters: [SignalFilter]) -> (id: UInt64, stream: AsyncStream<Message>) {
        let (stream, continuation) = AsyncStream.makeStream(of: Message.self, bufferingPolicy: .unbounded)
        nextID += 1
        if finished {
            continuation.finish()
        } else {
            subscribers[nextID] = Subscriber(filters: filters, continuation: continuation)
        }
        return (nextID, stream)
    }

    /// Removes a subscriber and finishes its stream.
    func unregister(_ id: UInt64) {
        subscribers.removeValue(forKey: id)?.continuation.finish()
    }

    /// Whether the connection's message stream has ended.
    var isFinished: Bool { finished }

    private func deliver(_ message: Message) {
        for (id, subscriber) in subscribers where subscriber.filters.contains(where: { $0.matches(message) }) {
            if case .terminated = subscriber.continuation.yield(message) {
                subscribers[id] = nil  // its consumer went away (cancelled iteration)
            }
        }
    }

    private func finishAll() {
        finished = true
        for subscriber in subscribers.values { subscriber.continuation.finish() }
        subscribers.removeAll()
    }
}

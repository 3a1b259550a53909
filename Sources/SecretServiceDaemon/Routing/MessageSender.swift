// SPDX-License-Identifier: Apache-2.0
// Where the daemon puts replies and signals: the bus connection, or a capturing sink in tests.

public import DBusWire

/// Delivers outgoing messages and answers whether a client is still on the bus. The daemon uses the bus
/// connection; router tests use a capturing sender.
public protocol MessageSender: Sendable {
    /// Sends `message`; failures (a closed connection) are the sender's to log, never the caller's to handle.
    func deliver(_ message: Message) async

    /// Whether the unique name `name` still has its connection on the bus, as the bus answers now. `true` when the
    /// bus cannot be asked: a client is forgotten only on the bus's word that it left.
    func isOnBus(_ name: BusName) async -> Bool
}

/// Collects every message sent, for tests that drive the router without a bus.
public actor CapturingSender: MessageSender {
    public private(set) var messages: [Message] = []
    private var waiters: [(matches: @Sendable (Message) -> Bool, continuation: CheckedContinuation<Message, Never>)] = []

    public init() {}

    public func deliver(_ message: Message) async {
        messages.append(message)
        var remaining: [(matches: @Sendable (Message) -> Bool, continuation: CheckedContinuation<Message, Never>)] = []
        for waiter in waiters {
            if waiter.matches(message) { waiter.continuation.resume(returning: message) } else { remaining.append(waiter) }
        }
        waiters = remaining
    }

    /// Always `true`: a capture has no bus, so every caller is present.
    public func isOnBus(_ name: BusName) async -> Bool { true }

    /// Returns the first message sent (already or later) that satisfies `matches`.
    @discardableResult
    public func waitForMessage(where matches: @escaping @Sendable (Message) -> Bool) async -> Message {
        if let sent = messages.first(where: matches) { return sent }
        return await withCheckedContinuation { waiters.append((matches, $0)) }
    }
}

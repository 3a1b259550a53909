// SPDX-License-Identifier: Apache-2.0
// Where the daemon puts replies and signals: the bus connection, or a capturing sink in tests.

public import DBusWire

/// Delivers outgoing messages. The daemon uses the bus connection; router tests use a capturing sender.
public protocol MessageSender: Sendable {
    /// Sends `message`; failures (a closed connection) are the sender's to log, never the caller's to handle.
    func deliver(_ message: Message) async
}

/// Collects every message sent, for tests that drive the router without a bus.
public actor CapturingSender: MessageSender {
    public private(set) var messages: [Message] = []
    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    public init() {}

    public func deliver(_ message: Message) async {
        messages.append(message)
        let ready = waiters.filter { $0.count <= messages.count }
        waiters.removeAll { $0.count <= messages.count }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Suspends until at least `count` messages were sent.
    public func waitForMessages(count: Int) async {
        if messages.count >= count { return }
        await withCheckedContinuation { waiters.append((count, $0)) }
    }
}

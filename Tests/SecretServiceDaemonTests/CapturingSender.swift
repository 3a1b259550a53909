// SPDX-License-Identifier: Apache-2.0
// A message sender that keeps what the router sends, for tests that drive the router without a bus.

import DBusWire
import SecretServiceDaemon

/// Collects every message sent, for tests that drive the router without a bus.
actor CapturingSender: MessageSender {
    private(set) var messages: [Message] = []
    private var waiters: [(matches: @Sendable (Message) -> Bool, continuation: CheckedContinuation<Message, Never>)] = []

    init() {}

    func deliver(_ message: Message) async {
        messages.append(message)
        var remaining: [(matches: @Sendable (Message) -> Bool, continuation: CheckedContinuation<Message, Never>)] = []
        for waiter in waiters {
            if waiter.matches(message) { waiter.continuation.resume(returning: message) } else { remaining.append(waiter) }
        }
        waiters = remaining
    }

    /// Always `true`: a capture has no bus, so every caller is present.
    func isOnBus(_ name: BusName) async -> Bool { true }

    /// Returns the first message sent (already or later) that satisfies `matches`.
    @discardableResult
    func waitForMessage(where matches: @escaping @Sendable (Message) -> Bool) async -> Message {
        if let sent = messages.first(where: matches) { return sent }
        return await withCheckedContinuation { waiters.append((matches, $0)) }
    }
}

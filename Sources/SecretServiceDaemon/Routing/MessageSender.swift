// SPDX-License-Identifier: Apache-2.0
// Where the daemon puts replies and signals: the bus connection (tests put a capturing sink in its place).

public import DBusWire

/// Delivers outgoing messages. The daemon uses the bus connection; router tests use a capturing sender.
public protocol MessageSender: Sendable {
    /// Sends `message`; failures (a closed connection) are the sender's to log, never the caller's to handle.
    func deliver(_ message: Message) async
}

// SPDX-License-Identifier: Apache-2.0
// Where the daemon puts replies and signals: the bus connection (tests put a capturing sink in its place).

public import DBusWire
public import DBusTransport

/// Delivers outgoing messages and answers whether a client is still on the bus. The daemon uses the bus
/// connection; router tests use a capturing sender.
public protocol MessageSender: Sendable {
    /// Sends `message`; failures (a closed connection) are the sender's to log, never the caller's to handle.
    func deliver(_ message: Message) async

    /// Whether the unique name `name` still has its connection on the bus, as the bus answers now. `true` when the
    /// bus cannot be asked: a client is forgotten only on the bus's word that it left.
    func isOnBus(_ name: BusName) async -> Bool

    /// Calls a method on another connection (a prompt agent) and returns its reply.
    /// - Throws: the error reply as `DBusError`, or the transport's error (timeout, cancellation, no bus).
    func call(_ message: Message, timeout: Duration) async throws -> Message

    /// The bus's credentials of the connection `name` (user and process); `nil` when the bus cannot tell.
    func connectionCredentials(of name: BusName) async -> ConnectionCredentials?
}

/// Why a sender with no bus behind it cannot call anyone.
public struct NoBusToCall: Error, CustomStringConvertible {
    public init() {}
    public var description: String { "this message sender has no bus to call on" }
}

extension MessageSender {
    /// Senders that only capture messages (router tests) call nobody.
    public func call(_ message: Message, timeout: Duration) async throws -> Message { throw NoBusToCall() }

    /// Senders with no bus know nobody's credentials.
    public func connectionCredentials(of name: BusName) async -> ConnectionCredentials? { nil }
}

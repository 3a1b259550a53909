// SPDX-License-Identifier: Apache-2.0
// A live subscription to signals: its bus match rules plus the stream of matching signals.

import DBusTransport
public import DBusWire

/// The signals matching some filters, in arrival order. The match rules were added on the bus before the
/// subscription was returned, so anything the caller does afterwards is observed.
///
/// Iterate it like any `AsyncSequence`; the sequence ends when the connection closes. Call ``cancel()`` when done,
/// which removes the match rules and ends the sequence.
public struct SignalSubscription: AsyncSequence, Sendable {
    public typealias Element = Message

    let id: UInt64
    let stream: AsyncStream<Message>
    let router: SignalRouter
    let connection: Connection
    /// The filters, whose match rules this subscription added.
    public let filters: [SignalFilter]

    public func makeAsyncIterator() -> AsyncStream<Message>.Iterator { stream.makeAsyncIterator() }

    /// Adds the match rules, then registers with the router.
    static func open(_ filters: [SignalFilter], router: SignalRouter, connection: Connection) async throws
        -> SignalSubscription {
        var added: [SignalFilter] = []
        do {
            for filter in filters {
                try await connection.addMatch(filter.matchRule)
                added.append(filter)
            }
        } catch {
            for filter in added { try? await connection.removeMatch(filter.matchRule) }
            throw ProxyTarget.translate(error)
        }
        let (id, stream) = await router.register(filters)
        return SignalSubscription(id: id, stream: stream, router: router, connection: connection, filters: filters)
    }

    /// Ends the subscription: the sequence finishes and the match rules are removed (failures to remove them from
    /// a closed connection are ignored).
    public func cancel() async {
        await router.unregister(id)
        for filter in filters { try? await connection.removeMatch(filter.matchRule) }
    }
}

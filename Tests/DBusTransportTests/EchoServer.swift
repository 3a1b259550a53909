// SPDX-License-Identifier: Apache-2.0
// A test peer that serves /org/example: it echoes, fails, or ignores calls, and reports every call it sees.

import DBusTransport
import DBusWire
import Glibc
import SecretServiceTestSupport

/// Serves `/org/example` and below on its own connection.
///
/// Members: `Echo` replies with the call's body, `Fail` replies `org.example.Error.Failed`, anything else
/// (`Ignore`, `Record`) gets no reply. Every call is also yielded to ``received``.
final class EchoServer: Sendable {
    static let interface: InterfaceName = "org.example.Echo"
    static let failure: ErrorName = "org.example.Error.Failed"

    let connection: Connection
    /// Every method call the server saw, in order.
    let received: AsyncStream<Message>
    private let task: Task<Void, Never>

    init(bus: TestBus) async throws {
        connection = try await bus.connect()
        try await connection.registerObjectTree(at: "/org/example")
        let (received, continuation) = AsyncStream.makeStream(of: Message.self)
        self.received = received
        let connection = connection
        // On the connection's own loop thread, not the shared pool: other suites running in parallel may hold every
        // pool thread (two on a two-core machine) for seconds, and a server that cannot answer makes callers time out.
        task = Task(executorPreference: connection.taskExecutor) {
            for await message in connection.messages where message.kind == .methodCall {
                switch message.member?.rawValue {
                case "Echo": _ = try? await connection.send(message.makeReply(message.body))
                case "Fail":
                    _ = try? await connection.send(message.makeErrorReply(DBusError(Self.failure, "it failed")))
                default: break
                }
                // Received descriptors belong to us; libdbus duplicated them again for the reply.
                for case .unixFD(let fd) in message.body { Glibc.close(fd.rawValue) }
                continuation.yield(message)
            }
            continuation.finish()
        }
    }

    var uniqueName: BusName { connection.uniqueName }

    /// A call to this server.
    func call(_ member: MemberName, path: ObjectPath = "/org/example", _ body: [DBusValue] = []) -> Message {
        .methodCall(destination: uniqueName, path: path, interface: Self.interface, member: member, body: body)
    }

    /// Waits for the next call the server sees.
    func nextCall() async -> Message? {
        var iterator = received.makeAsyncIterator()
        return await iterator.next()
    }

    func close() async {
        await connection.close()
        await task.value
    }
}

/// The first message of `stream` that satisfies `predicate`; `nil` if the stream finishes first.
func firstMessage(_ stream: AsyncStream<Message>, where predicate: (Message) -> Bool) async -> Message? {
    for await message in stream where predicate(message) { return message }
    return nil
}

// SPDX-License-Identifier: Apache-2.0
// A stand-in for systemd-logind on a private bus: owns org.freedesktop.login1, answers session look-ups, emits signals.

public import DBusTransport
public import DBusWire

/// Owns `org.freedesktop.login1` on a test bus, answers `GetSession` from a fixed table (any other manager method
/// gets `NoSuchSession`, as logind answers for a process outside a session), and sends the signals a test asks for.
public final class StandInLogind: Sendable {
    public static let managerPath = ObjectPath(unchecked: "/org/freedesktop/login1")
    public static let managerInterface = InterfaceName(unchecked: "org.freedesktop.login1.Manager")
    public static let sessionInterface = InterfaceName(unchecked: "org.freedesktop.login1.Session")

    /// The stand-in's connection; close it to stop serving.
    public let connection: Connection
    private let queries: AsyncStream<String>
    private let server: Task<Void, Never>

    private init(connection: Connection, queries: AsyncStream<String>, server: Task<Void, Never>) {
        self.connection = connection
        self.queries = queries
        self.server = server
    }

    deinit { server.cancel() }

    /// Connects to `bus`, takes the name and serves until the connection closes.
    /// - Parameters:
    ///   - bus: the bus standing in for the system bus.
    ///   - sessions: `GetSession`'s answers, by session id.
    public static func start(on bus: TestBus, sessions: [String: ObjectPath]) async throws -> StandInLogind {
        let connection = try await bus.connect()
        try await connection.registerObjectTree(at: managerPath)
        _ = try await connection.requestName(BusName(unchecked: "org.freedesktop.login1"), flags: [.doNotQueue])
        let (queries, query) = AsyncStream.makeStream(of: String.self)
        let server = Task {
            for await message in connection.messages where message.kind == .methodCall {
                let reply: Message
                if message.interface == managerInterface, message.member == "GetSession",
                   let id = message.body.first?.string, let path = sessions[id] {
                    reply = message.makeReply([.objectPath(path)])
                } else {
                    reply = message.makeErrorReply(
                        DBusError(ErrorName(unchecked: "org.freedesktop.login1.NoSuchSession"), "no session"))
                }
                _ = try? await connection.send(reply)
                if let member = message.member { query.yield(member.rawValue) }
            }
            query.finish()
        }
        return StandInLogind(connection: connection, queries: queries, server: server)
    }

    /// Returns once a client asked for a session (`GetSession` or `GetSessionByPID`), after the answer went out.
    public func waitForSessionQuery() async {
        for await member in queries where member.hasPrefix("GetSession") { return }
    }

    /// Broadcasts a signal from logind's name.
    public func emit(path: ObjectPath, interface: InterfaceName, member: MemberName, body: [DBusValue] = [])
        async throws {
        try await connection.send(.signal(path: path, interface: interface, member: member, body: body))
    }
}

// SPDX-License-Identifier: Apache-2.0
// A stand-in for systemd-logind on a private bus: owns org.freedesktop.login1, answers session look-ups, emits signals.

public import DBusTransport
public import DBusWire

/// Owns `org.freedesktop.login1` on a test bus, answers `GetSession` from a fixed table, `GetUser` and the user's
/// `Display` property with the graphical session when one is given (anything else gets `NoSuchSession`, as logind
/// answers for a process outside a session), and sends the signals a test asks for.
public final class StandInLogind: Sendable {
    public static let managerPath = ObjectPath(unchecked: "/org/freedesktop/login1")
    public static let managerInterface = InterfaceName(unchecked: "org.freedesktop.login1.Manager")
    public static let sessionInterface = InterfaceName(unchecked: "org.freedesktop.login1.Session")
    static let userPath = ObjectPath(unchecked: "/org/freedesktop/login1/user")

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
    ///   - display: the user's graphical session (id and path), which `GetUser` and its `Display` property report.
    public static func start(on bus: TestBus, sessions: [String: ObjectPath],
                             display: (id: String, path: ObjectPath)? = nil) async throws -> StandInLogind {
        let connection = try await StandInService.claim(BusName(unchecked: "org.freedesktop.login1"), at: managerPath,
                                                        on: bus)
        let (queries, query) = AsyncStream.makeStream(of: String.self)
        let server = StandInService.run(on: connection) {
            for await message in connection.messages where message.kind == .methodCall {
                let reply: Message
                if message.interface == managerInterface, message.member == "GetSession",
                   let id = message.body.first?.string, let path = sessions[id] {
                    reply = message.makeReply([.objectPath(path)])
                } else if message.interface == managerInterface, message.member == "GetUser", display != nil,
                          case .uint32(let uid)? = message.body.first {
                    reply = message.makeReply([.objectPath(userPath.appending("_\(uid)"))])
                } else if let display, message.member == "Get", message.path?.isDescendant(of: userPath) == true,
                          message.body == [.string("org.freedesktop.login1.User"), .string("Display")] {
                    reply = message.makeReply([.variant(.structure([.string(display.id), .objectPath(display.path)]))])
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

    /// Returns once a client made the call `member` (`GetSession`, `Get`, …), after the answer went out.
    public func waitForCall(_ member: String) async {
        for await made in queries where made == member { return }
    }

    /// Broadcasts a signal from logind's name.
    public func emit(path: ObjectPath, interface: InterfaceName, member: MemberName, body: [DBusValue] = [])
        async throws {
        try await connection.send(.signal(path: path, interface: interface, member: member, body: body))
    }
}

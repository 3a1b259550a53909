// SPDX-License-Identifier: Apache-2.0
// Locks collections when the machine goes to sleep or the user's screen locks, as logind announces on the system bus.

#if canImport(Glibc)
import Glibc
#endif
import DBusTransport
import DBusWire
public import Logging
public import SecretStore

/// Watches logind (`org.freedesktop.login1`) on the system bus and locks the collections the policy selects:
/// `PrepareForSleep(true)` on the manager for `lock-on-sleep`, `Lock` on the user's session for
/// `lock-on-screen-lock`.
///
/// Missing pieces are not failures: with no system bus, no logind or no session of ours, the watcher logs one line
/// and watches what it can (sleep needs no session), since cofferd serves secrets just as well without it.
public struct SessionLockWatcher: Sendable {
    static let logind = BusName(unchecked: "org.freedesktop.login1")
    static let managerPath = ObjectPath(unchecked: "/org/freedesktop/login1")
    static let managerInterface = InterfaceName(unchecked: "org.freedesktop.login1.Manager")
    static let sessionInterface = InterfaceName(unchecked: "org.freedesktop.login1.Session")

    private let store: SecretStore
    private let policy: AutoLockPolicy
    private let sessionID: String?
    private let logger: Logger

    /// - Parameters:
    ///   - store: the collections to lock.
    ///   - policy: which collections lock on which event.
    ///   - sessionID: the login session to watch for `Lock` (`XDG_SESSION_ID`); `nil` asks logind for the
    ///     session of this process, then for the user's graphical session.
    ///   - logger: notes each lock at info level, and why watching is limited.
    public init(store: SecretStore, policy: AutoLockPolicy, sessionID: String?, logger: Logger) {
        self.store = store
        self.policy = policy
        self.sessionID = sessionID
        self.logger = logger
    }

    /// Watches until cancelled or until the system bus connection drops. The system bus is
    /// `DBUS_SYSTEM_BUS_ADDRESS` when set, else the standard socket.
    public func run() async {
        let connection: Connection
        do {
            connection = try await Connection.connectToSystemBus(logger: logger)
        } catch {
            logger.notice("no system bus; lock-on-sleep and lock-on-screen-lock have no effect",
                          metadata: ["error": "\(error)"])
            return
        }
        await withTaskCancellationHandler {
            await watch(on: connection)
        } onCancel: {
            connection.finishMessages()
        }
        if !Task.isCancelled {
            logger.notice("the system bus connection closed; lock-on-sleep and lock-on-screen-lock have no effect")
        }
        await connection.close()
    }

    private func watch(on connection: Connection) async {
        // Subscribe before asking for the session, so a signal sent while we ask is already routed to us; signals
        // are buffered until the loop below reads them.
        let sender = "sender='\(Self.logind.rawValue)'"
        do {
            try await connection.addMatch("type='signal',\(sender),interface='\(Self.managerInterface.rawValue)',"
                + "member='PrepareForSleep',path='\(Self.managerPath.rawValue)'")
            try await connection.addMatch(
                "type='signal',\(sender),interface='\(Self.sessionInterface.rawValue)',member='Lock'")
        } catch {
            logger.notice("cannot subscribe to logind's signals; lock-on-sleep and lock-on-screen-lock have no effect",
                          metadata: ["error": "\(error)"])
            return
        }
        let session = await findSession(on: connection)
        if session == nil && policy.locksAnything(on: .screenLock) {
            logger.notice("no logind session found for cofferd; lock-on-screen-lock has no effect")
        }
        for await message in connection.messages {
            guard let event = await event(in: message, session: session, connection: connection) else { continue }
            let policy = self.policy
            let locked = await store.lockCollections { policy.locks(on: event, collection: $0, isInMemory: $1) }
            for id in locked {
                logger.info("locked a collection on \(event.rawValue)", metadata: ["secret.collection": "\(id)"])
            }
        }
    }

    /// The session event a signal announces, if it is one of ours and comes from logind itself.
    private func event(in message: Message, session: ObjectPath?, connection: Connection) async -> SessionEvent? {
        guard message.kind == .signal else { return nil }
        let event: SessionEvent
        switch (message.interface, message.member?.rawValue) {
        case (Self.managerInterface?, "PrepareForSleep"):
            // `false` announces the resume.
            guard message.path == Self.managerPath, message.body.first == .boolean(true) else { return nil }
            event = .sleep
        case (Self.sessionInterface?, "Lock"):
            guard let session, message.path == session else { return nil }
            event = .screenLock
        default:
            return nil
        }
        // Anyone may send a signal to our connection directly; only logind's own count. Asked each time: logind
        // restarts under a new unique name, and these signals are rare.
        guard let sender = message.sender, (try? await connection.nameOwner(of: Self.logind)) == sender else {
            return nil
        }
        return event
    }

    /// Our login session's object path: `GetSession($XDG_SESSION_ID)`, else `GetSessionByPID(own pid)`, else the
    /// user's graphical session (the `Display` of `GetUser(uid)`), which is where a daemon started by the user's
    /// service manager, outside any session, belongs.
    private func findSession(on connection: Connection) async -> ObjectPath? {
        if let sessionID, !sessionID.isEmpty,
           let path = await managerCall(on: connection, "GetSession", [.string(sessionID)])?.first?.objectPath {
            return path
        }
        if let path = await managerCall(on: connection, "GetSessionByPID", [.uint32(UInt32(getpid()))])?.first?
            .objectPath {
            return path
        }
        guard let user = await managerCall(on: connection, "GetUser", [.uint32(getuid())])?.first?.objectPath else {
            return nil
        }
        let get = Message.methodCall(
            destination: Self.logind, path: user, interface: "org.freedesktop.DBus.Properties", member: "Get",
            body: [.string("org.freedesktop.login1.User"), .string("Display")])
        guard let reply = try? await connection.call(get, timeout: .seconds(5)),
              case .variant(.structure(let fields))? = reply.body.first, fields.count == 2,
              let path = fields[1].objectPath, path != .root
        else { return nil }
        return path
    }

    private func managerCall(on connection: Connection, _ member: MemberName, _ body: [DBusValue]) async
        -> [DBusValue]? {
        let call = Message.methodCall(destination: Self.logind, path: Self.managerPath,
                                      interface: Self.managerInterface, member: member, body: body)
        do {
            return try await connection.call(call, timeout: .seconds(5)).body
        } catch {
            logger.debug("logind \(member) failed", metadata: ["error": "\(error)"])
            return nil
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// The public D-Bus connection: an actor whose executor is its own bus loop thread.

public import DBusWire
public import Logging
import Synchronization

/// A private connection to a message bus.
///
/// Each connection owns one dedicated thread that polls its socket and is the actor's executor, so every
/// method touches libdbus on that thread, and libdbus callbacks, which arrive on the same thread, never race
/// with it. Nothing blocks that thread once connected.
/// Method calls addressed to registered object trees and all signals routed to this connection arrive on
/// ``messages``; the application answers calls with ``send(_:)``.
///
/// Unix file descriptors: values sent are duplicated by libdbus (the caller keeps and closes its own);
/// every `h` value received is a fresh duplicate the receiver owns and must close.
public actor Connection {
    let core: ConnectionCore
    /// Our unique name on the bus, such as `:1.42`.
    public nonisolated let uniqueName: BusName
    /// Every incoming message the application should see: method calls addressed to a registered object tree,
    /// and all signals the bus routes to this connection (the application filters). Messages are buffered until
    /// read. The stream finishes when the connection is closed or the link drops.
    public nonisolated let messages: AsyncStream<Message>

    /// The connection's bus loop thread.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { core.loop.asUnownedSerialExecutor() }
    /// The connection's bus loop thread as a task executor, for `withTaskExecutorPreference`.
    public nonisolated var taskExecutor: BusLoopTaskExecutor { core.loop.taskExecutor }

    private init(core: ConnectionCore, uniqueName: BusName, messages: AsyncStream<Message>) {
        self.core = core
        self.uniqueName = uniqueName
        self.messages = messages
    }

    deinit {
        guard !core.closed.load(ordering: .acquiring) else { return }
        let core = core
        core.loop.execute { core.close() }
    }

    // MARK: - Connecting

    /// Opens a private connection to the bus at `address`, registers with it (Hello) and starts the loop thread.
    /// - Parameters:
    ///   - address: a D-Bus address, as printed by `dbus-daemon --print-address`.
    ///   - logger: receives debug-level connection events.
    /// - Throws: ``TransportError/invalidAddress``, or ``TransportError/connectionFailed`` when the bus cannot
    ///   be reached or refuses us.
    public static func connect(address: String, logger: Logger = Logger(label: "coffer.dbus")) async throws
        -> Connection {
        let loop = BusLoop()
        let (messages, continuation) = AsyncStream.makeStream(of: Message.self)
        let opened = try await loop.perform { () throws -> ConnectionCore.Opened in
            do {
                return try ConnectionCore.open(address: address, loop: loop, logger: logger,
                                               continuation: continuation)
            } catch {
                continuation.finish()
                loop.stop()
                throw error
            }
        }
        return Connection(core: opened.core, uniqueName: opened.uniqueName, messages: messages)
    }

    /// Connects to the session bus named by `DBUS_SESSION_BUS_ADDRESS` (or, when that is unset, the
    /// `$XDG_RUNTIME_DIR/bus` socket).
    /// - Parameter logger: receives debug-level connection events.
    /// - Throws: ``TransportError/noSessionBus`` when no address is set or the bus cannot be reached.
    public static func connectToSessionBus(logger: Logger = Logger(label: "coffer.dbus")) async throws
        -> Connection {
        guard let address = SessionBusAddress.fromEnvironment() else { throw TransportError.noSessionBus }
        do {
            return try await connect(address: address, logger: logger)
        } catch let error as TransportError where error == .connectionFailed || error == .invalidAddress {
            throw TransportError.noSessionBus.with(detail: error.detail)
        }
    }

    /// Connects to the system bus named by `DBUS_SYSTEM_BUS_ADDRESS`, or else libdbus's standard system bus socket.
    /// - Parameter logger: receives debug-level connection events.
    /// - Throws: ``TransportError/noSystemBus`` when the bus cannot be reached.
    public static func connectToSystemBus(logger: Logger = Logger(label: "coffer.dbus")) async throws -> Connection {
        do {
            return try await connect(address: SystemBusAddress.fromEnvironment(), logger: logger)
        } catch let error as TransportError where error == .connectionFailed || error == .invalidAddress {
            throw TransportError.noSystemBus.with(detail: error.detail)
        }
    }

    // MARK: - Messages

    /// Sends a reply, an error, a signal, or a method call whose reply we do not want.
    /// - Parameter message: the message; its `serial` is ignored.
    /// - Returns: the serial libdbus assigned.
    /// - Throws: ``TransportError/invalidMessage`` for a malformed message (checked before libdbus sees it),
    ///   ``TransportError/disconnected`` when the connection is closed.
    @discardableResult
    public func send(_ message: Message) throws -> UInt32 {
        try core.send(message)
    }

    /// Sends a method call and waits for its reply.
    /// - Parameters:
    ///   - message: a method call; its `noReplyExpected` flag is cleared.
    ///   - timeout: how long to wait for the reply (rounded to milliseconds).
    /// - Returns: the method return.
    /// - Throws: the error reply as DBusWire's `DBusError`; ``TransportError/timedOut``,
    ///   ``TransportError/disconnected``, ``TransportError/invalidMessage``, or ``TransportError/cancelled``
    ///   when the task is cancelled (the pending call is cancelled too).
    public func call(_ message: Message, timeout: Duration = .seconds(25)) async throws -> Message {
        guard message.kind == .methodCall else {
            throw TransportError.invalidMessage.with(detail: "only method calls have replies")
        }
        let id = core.makeCallID()
        let milliseconds = ConnectionCore.milliseconds(timeout)
        let core = core
        return try await withTaskCancellationHandler {
            try await awaitReply(to: message, id: id, timeoutMilliseconds: milliseconds)
        } onCancel: {
            core.loop.execute { core.cancelCall(id) }
        }
    }

    /// Starts call `id` and suspends until its reply. Being an actor method, it runs on the loop thread, and
    /// so does the continuation body (closures that do not capture `self` are not reliably actor-isolated).
    private func awaitReply(to message: Message, id: UInt64, timeoutMilliseconds: Int32) async throws -> Message {
        try await withCheckedThrowingContinuation { continuation in
            guard !Task.isCancelled else { return continuation.resume(throwing: TransportError.cancelled) }
            core.startCall(message, timeoutMilliseconds: timeoutMilliseconds, id: id, continuation: continuation)
        }
    }

    // MARK: - Limits

    /// The largest body (the arguments, as marshalled) an incoming message may have. Larger ones are measured from
    /// their length prefixes and never decoded: a method call is answered with
    /// `org.freedesktop.DBus.Error.LimitsExceeded`, a signal is dropped, a reply fails its call with
    /// ``TransportError/invalidMessage``, and the connection stays up. The default is the protocol's limit on
    /// whole messages (128 MiB).
    ///
    /// libdbus's own limit (`dbus_connection_set_max_message_size`) would not do: a message over it marks the
    /// receiving stream corrupt and libdbus drops the *receiving* connection, so any peer on the bus could
    /// disconnect us with one oversized call.
    public var maximumIncomingBodySize: Int { core.maximumIncomingBodySize }

    /// Sets ``maximumIncomingBodySize``; it applies to every message dispatched from then on.
    /// - Parameter bytes: the limit; a negative value counts as 0.
    public func setMaximumIncomingBodySize(_ bytes: Int) {
        core.maximumIncomingBodySize = max(0, bytes)
    }

    // MARK: - Objects

    /// Registers a fallback handler for `path` and everything beneath it. Method calls there are yielded to
    /// ``messages`` and answered later through ``send(_:)``. libdbus itself keeps answering
    /// `org.freedesktop.DBus.Peer` everywhere and `Introspect` on the parents of registered paths.
    /// - Throws: ``TransportError/objectPathInUse`` when the path is already registered.
    public func registerObjectTree(at path: ObjectPath) throws {
        try core.registerFallback(at: path)
    }

    /// Removes a registration made with ``registerObjectTree(at:)``; unknown paths are ignored.
    public func unregisterObjectTree(at path: ObjectPath) {
        core.unregisterFallback(at: path)
    }

    // MARK: - Lifecycle

    /// Finishes ``messages`` while the connection stays open, so an application can stop taking new calls and
    /// still answer the ones it has. Messages already buffered are still delivered; method calls arriving later
    /// are answered by libdbus with `UnknownMethod`, later signals are dropped. Sending, calls and replies keep
    /// working until ``close()``. Safe from any thread, such as a shutdown handler's.
    public nonisolated func finishMessages() {
        core.continuation.finish()
    }

    /// Flushes outgoing messages, closes the connection, fails calls in flight with
    /// ``TransportError/disconnected``, finishes ``messages`` and stops the loop thread. Idempotent; also done
    /// when the connection is deinitialised.
    public func close() {
        core.close()
    }

    /// Whether the connection is open and the bus has not dropped it.
    public var isConnected: Bool { core.isConnected }
}

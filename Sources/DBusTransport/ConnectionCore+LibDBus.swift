// SPDX-License-Identifier: Apache-2.0
// The loop-confined half of a connection: owns the DBusConnection, installs the loop hooks, dispatches, closes.

internal import CDBus
import DBusWire
import Glibc
import Logging
import Synchronization

/// Everything that touches the `DBusConnection`. It lives on the bus loop thread: the ``Connection`` actor (whose
/// executor is the loop) calls it from its methods, and libdbus callbacks reach it through an unretained pointer.
/// It outlives the libdbus registrations because ``close()`` removes them before the last reference is dropped.
final class ConnectionCore: @unchecked Sendable {
    // @unchecked Sendable: mutable state is touched on the loop thread only; other threads just carry it there.

    /// The result of ``open(address:loop:logger:continuation:)``.
    struct Opened: Sendable {
        let core: ConnectionCore
        let uniqueName: BusName
    }

    let loop: BusLoop
    let logger: Logger
    let watchTable = WatchTable()
    let continuation: AsyncStream<Message>.Continuation
    /// Set once `close()` ran; readable from any thread.
    let closed = Atomic<Bool>(false)
    /// The connection; `nil` once closed.
    private(set) var raw: OpaquePointer?
    var pendingCalls: [UInt64: PendingCall] = [:]
    var nextCallID: UInt64 = 0
    var registeredPaths: Set<ObjectPath> = []
    /// Incoming messages whose body is larger are refused without being decoded (``MessageBodySize``).
    var maximumIncomingBodySize = Int(cdbus_maximum_message_length)
    private var linkDropped = false

    private init(raw: OpaquePointer, loop: BusLoop, logger: Logger, continuation: AsyncStream<Message>.Continuation) {
        self.raw = raw
        self.loop = loop
        self.logger = logger
        self.continuation = continuation
    }

    /// `dbus_threads_init_default`, once per process.
    private static let threadsInitialized: Bool = dbus_threads_init_default() != 0

    // MARK: - Opening

    /// Connects, says Hello, and attaches the connection to `loop`. Runs on the loop thread before anything
    /// else uses it, so the blocking Hello (`dbus_bus_register`) stalls nobody.
    /// The corresponding C functions are `dbus_connection_open_private` and `dbus_bus_register`.
    static func open(address: String, loop: BusLoop, logger: Logger,
                     continuation: AsyncStream<Message>.Continuation) throws(TransportError) -> Opened {
        loop.checkIsolated()
        guard threadsInitialized else { throw .outOfMemory }
        var error = cdbus_error()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let raw = dbus_connection_open_private(address, &error) else {
            let code: TransportError = error.nameText == "org.freedesktop.DBus.Error.BadAddress"
                ? .invalidAddress : .connectionFailed
            throw code.with(detail: error.messageText)
        }
        dbus_connection_set_exit_on_disconnect(raw, 0)
        guard dbus_bus_register(raw, &error) != 0, let unique = dbus_bus_get_unique_name(raw) else {
            let detail = error.messageText ?? "Hello failed"
            dbus_connection_close(raw)
            dbus_connection_unref(raw)
            throw TransportError.connectionFailed.with(detail: detail)
        }
        let uniqueName = BusName(unchecked: String(cString: unique))
        let core = ConnectionCore(raw: raw, loop: loop, logger: logger, continuation: continuation)
        guard core.install(raw) else {
            core.close()
            throw TransportError.outOfMemory
        }
        logger.debug("D-Bus connection opened", metadata: ["dbus.sender": "\(uniqueName)"])
        return Opened(core: core, uniqueName: uniqueName)
    }

    /// Installs the filter and the main-loop hooks, then starts polling.
    private func install(_ raw: OpaquePointer) -> Bool {
        let me = Unmanaged.passUnretained(self).toOpaque()
        let table = Unmanaged.passUnretained(watchTable).toOpaque()
        typealias C = LibDBusCallbacks
        guard dbus_connection_add_filter(raw, C.filter, me, nil) != 0,
              dbus_connection_set_watch_functions(raw, C.addWatch, C.removeWatch, C.toggleWatch, table, nil) != 0,
              dbus_connection_set_timeout_functions(raw, C.addTimeout, C.removeTimeout, C.toggleTimeout, table,
                                                    nil) != 0
        else { return false }
        dbus_connection_set_wakeup_main_function(raw, C.wakeUp, me, nil)
        dbus_connection_set_dispatch_status_function(raw, C.dispatchStatusChanged, me, nil)
        loop.attach(self)
        return true
    }

    // MARK: - State

    /// Whether the connection is open and the link is up.
    var isConnected: Bool {
        loop.checkIsolated()
        return isLinkUp
    }

    private var isLinkUp: Bool {
        guard let raw, !linkDropped else { return false }
        return dbus_connection_get_is_connected(raw) != 0
    }

    // MARK: - Incoming messages

    /// The connection filter. Signals go to the application here (so the object tree never sees them twice);
    /// method calls continue to the object tree, where libdbus answers unknown paths itself.
    func filter(_ message: OpaquePointer) -> DBusHandlerResult {
        switch dbus_message_get_type(message) {
        case cdbus_message_type_signal:
            if dbus_message_is_signal(message, "org.freedesktop.DBus.Local", "Disconnected") != 0,
               dbus_message_has_path(message, "/org/freedesktop/DBus/Local") != 0 {
                linkLost()
                return DBUS_HANDLER_RESULT_HANDLED
            }
            guard fitsSizeLimit(message) else {
                logger.debug("Dropped a D-Bus signal over the size limit",
                             metadata: ["dbus.sender": "\(Self.sender(of: message))"])
                return DBUS_HANDLER_RESULT_HANDLED
            }
            if let decoded = MessageDecoder.decode(LibDBusMessage(retaining: message)) {
                if case .terminated = continuation.yield(decoded) { MessageDecoder.closeUnixFDs(in: decoded.body) }
            } else {
                logger.debug("Dropped an undecodable D-Bus signal")
            }
            return DBUS_HANDLER_RESULT_HANDLED
        case cdbus_message_type_method_call:
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        default:
            // Replies to our calls were matched to their pending call before the filters ran; drop strays.
            return DBUS_HANDLER_RESULT_HANDLED
        }
    }

    /// A method call under a registered tree: hand it to the application, which replies later with `send`.
    func handleObjectMessage(_ message: OpaquePointer) -> DBusHandlerResult {
        guard dbus_message_get_type(message) == cdbus_message_type_method_call else {
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        }
        guard fitsSizeLimit(message) else {
            logger.debug("Refused a D-Bus call over the size limit",
                         metadata: ["dbus.sender": "\(Self.sender(of: message))"])
            replyError(to: message, name: "org.freedesktop.DBus.Error.LimitsExceeded",
                       text: "The call's arguments are larger than \(maximumIncomingBodySize) bytes")
            return DBUS_HANDLER_RESULT_HANDLED
        }
        guard let decoded = MessageDecoder.decode(LibDBusMessage(retaining: message)) else {
            replyError(to: message, name: "org.freedesktop.DBus.Error.InvalidArgs", text: "Unreadable arguments")
            return DBUS_HANDLER_RESULT_HANDLED
        }
        if case .terminated = continuation.yield(decoded) {
            // Nobody listens any more: let libdbus answer UnknownMethod rather than leave the caller waiting.
            MessageDecoder.closeUnixFDs(in: decoded.body)
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        }
        return DBUS_HANDLER_RESULT_HANDLED
    }

    /// Whether the message's body is within ``maximumIncomingBodySize``, measured before anything is decoded.
    func fitsSizeLimit(_ message: OpaquePointer) -> Bool {
        MessageBodySize.of(message, limit: maximumIncomingBodySize) <= maximumIncomingBodySize
    }

    private static func sender(of message: OpaquePointer) -> String {
        dbus_message_get_sender(message).map { String(cString: $0) } ?? "-"
    }

    private func replyError(to message: OpaquePointer, name: String, text: String) {
        guard let raw, dbus_message_get_no_reply(message) == 0,
              let reply = dbus_message_new_error(message, name, text) else { return }
        _ = dbus_connection_send(raw, reply, nil)
        dbus_message_unref(reply)
    }

    // MARK: - Closing

    /// The bus dropped us: fail the calls in flight, finish the stream, release libdbus after this dispatch.
    private func linkLost() {
        guard !linkDropped else { return }
        linkDropped = true
        logger.debug("D-Bus connection lost")
        failAllPendingCalls(with: .disconnected)
        continuation.finish()
        loop.execute { [self] in close() }
    }

    /// Flushes (for at most a second), unregisters, closes and releases the connection, fails calls in flight,
    /// finishes the message stream and stops the loop. Idempotent.
    /// The corresponding C functions are `dbus_connection_close` and `dbus_connection_unref`.
    func close() {
        loop.checkIsolated()
        guard let raw else { return }
        closed.store(true, ordering: .releasing)
        flush(raw, within: .seconds(1))
        dbus_connection_remove_filter(raw, LibDBusCallbacks.filter, Unmanaged.passUnretained(self).toOpaque())
        for path in registeredPaths { _ = dbus_connection_unregister_object_path(raw, path.rawValue) }
        registeredPaths.removeAll()
        failAllPendingCalls(with: .disconnected)
        dbus_connection_close(raw)
        dbus_connection_unref(raw)
        self.raw = nil
        watchTable.removeAll()
        continuation.finish()
        loop.stop()
        logger.debug("D-Bus connection closed")
    }

    /// Writes queued outgoing messages, waiting at most `limit` for the peer to take them.
    private func flush(_ raw: OpaquePointer, within limit: Duration) {
        let deadline = ContinuousClock.now + limit
        while dbus_connection_get_is_connected(raw) != 0, dbus_connection_has_messages_to_send(raw) != 0 {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else {
                logger.debug("Gave up flushing D-Bus messages on close")
                return
            }
            _ = dbus_connection_read_write(raw, Self.milliseconds(remaining))
        }
    }

    /// A duration in whole milliseconds for libdbus, at least 1 and below `DBUS_TIMEOUT_INFINITE`.
    static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        guard !milliseconds.overflow else { return duration > .zero ? cdbus_timeout_infinite - 1 : 1 }
        let total = milliseconds.partialValue.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        guard !total.overflow else { return cdbus_timeout_infinite - 1 }
        return Int32(clamping: min(max(total.partialValue, 1), Int64(cdbus_timeout_infinite - 1)))
    }
}

// MARK: - BusLoopSource

extension ConnectionCore: BusLoopSource {
    func preparePoll(into descriptors: inout [pollfd]) -> Int32 {
        watchTable.preparePoll(into: &descriptors)
    }

    func handlePoll(_ descriptors: ArraySlice<pollfd>) {
        watchTable.handlePoll(descriptors)
    }

    /// Dispatches while libdbus has data, at most 64 messages per loop turn so queued jobs are not starved.
    /// The corresponding C function is `dbus_connection_dispatch`.
    func dispatch() -> Bool {
        var budget = 64
        while let raw, dbus_connection_get_dispatch_status(raw) == DBUS_DISPATCH_DATA_REMAINS {
            guard budget > 0 else { return true }
            budget -= 1
            _ = dbus_connection_dispatch(raw)
        }
        return false
    }
}

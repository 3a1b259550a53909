// SPDX-License-Identifier: Apache-2.0
// Sending messages, method calls with pending replies, and object-tree registration on the loop thread.

internal import CDBus
import DBusWire

extension ConnectionCore {
    // MARK: - Sending

    /// Validates, marshals and queues `message`; libdbus assigns and returns the serial.
    /// The corresponding C function is `dbus_connection_send`.
    func send(_ message: Message) throws(TransportError) -> UInt32 {
        loop.checkIsolated()
        let (raw, encoded) = try prepare(message)
        var serial: UInt32 = 0
        guard dbus_connection_send(raw, encoded.pointer, &serial) != 0 else { throw .outOfMemory }
        return serial
    }

    /// The open connection and the marshalled message, checking that the link can carry its descriptors.
    /// The encoder validates the message; nothing here walks the body again.
    /// The corresponding C function is `dbus_message_contains_unix_fds`.
    private func prepare(_ message: Message) throws(TransportError) -> (OpaquePointer, LibDBusMessage) {
        guard let raw, isConnected else { throw .disconnected }
        let encoded = try MessageEncoder.encode(message)
        if dbus_message_contains_unix_fds(encoded.pointer) != 0,
           dbus_connection_can_send_type(raw, cdbus_type_unix_fd) == 0 {
            throw TransportError.invalidMessage.with(detail: "this connection cannot pass file descriptors")
        }
        return (raw, encoded)
    }

    // MARK: - Calls

    /// Allocates the identifier of a call about to start.
    func makeCallID() -> UInt64 {
        nextCallID += 1
        return nextCallID
    }

    /// Sends a method call and arranges for `continuation` to receive its reply.
    /// The corresponding C functions are `dbus_connection_send_with_reply` and `dbus_pending_call_set_notify`.
    func startCall(_ message: Message, timeoutMilliseconds: Int32, id: UInt64,
                   continuation: CheckedContinuation<Message, any Error>) {
        loop.checkIsolated()
        var call = message
        call.noReplyExpected = false
        let raw: OpaquePointer, encoded: LibDBusMessage
        do {
            (raw, encoded) = try prepare(call)
        } catch {
            return continuation.resume(throwing: error)
        }
        var pointer: OpaquePointer?
        guard dbus_connection_send_with_reply(raw, encoded.pointer, &pointer, timeoutMilliseconds) != 0 else {
            return continuation.resume(throwing: TransportError.outOfMemory)
        }
        guard let pointer else { return continuation.resume(throwing: TransportError.disconnected) }
        let pending = PendingCall(id: id, pointer: pointer, core: self, continuation: continuation)
        pendingCalls[id] = pending
        let data = Unmanaged.passRetained(pending).toOpaque()
        guard dbus_pending_call_set_notify(pointer, LibDBusCallbacks.pendingCallNotify, data,
                                           LibDBusCallbacks.releasePendingCall) != 0 else {
            Unmanaged<PendingCall>.fromOpaque(data).release()
            return cancelCall(id, with: .outOfMemory)
        }
        // Only one thread touches the connection, so the reply cannot have slipped in before set_notify.
        if dbus_pending_call_get_completed(pointer) != 0 { completeCall(id) }
    }

    /// The reply (or local timeout) of call `id` arrived. The corresponding C function is
    /// `dbus_pending_call_steal_reply`.
    func completeCall(_ id: UInt64) {
        guard let call = pendingCalls.removeValue(forKey: id) else { return }
        let reply = dbus_pending_call_steal_reply(call.pointer)
        dbus_pending_call_unref(call.pointer)
        guard let reply else { return call.resume(with: .failure(TransportError.disconnected)) }
        let owned = LibDBusMessage(adopting: reply)
        // Measured through `owned`, which holds the only reference: the bare pointer would outlive it.
        guard withExtendedLifetime(owned, { fitsSizeLimit(owned.pointer) }) else {
            let detail = "the reply's body is larger than \(maximumIncomingBodySize) bytes"
            return call.resume(with: .failure(TransportError.invalidMessage.with(detail: detail)))
        }
        guard let decoded = MessageDecoder.decode(owned) else {
            return call.resume(with: .failure(TransportError.invalidMessage.with(detail: "unreadable reply")))
        }
        guard decoded.kind == .error else { return call.resume(with: .success(decoded)) }
        // libdbus synthesises NoReply without a sender when the timeout fires or the link drops;
        // everything the bus routes has a sender.
        if decoded.sender == nil, decoded.errorName == .noReply {
            return call.resume(with: .failure(isConnected ? TransportError.timedOut : TransportError.disconnected))
        }
        call.resume(with: .failure(decoded.error ?? DBusWire.DBusError(.failed, "Unnamed error reply")))
    }

    /// Abandons call `id` (task cancelled): libdbus drops its reply, the awaiting task gets `error`.
    /// The corresponding C function is `dbus_pending_call_cancel`.
    func cancelCall(_ id: UInt64, with error: TransportError = .cancelled) {
        guard let call = pendingCalls.removeValue(forKey: id) else { return }
        dbus_pending_call_cancel(call.pointer)
        dbus_pending_call_unref(call.pointer)
        call.resume(with: .failure(error))
    }

    /// Fails every call in flight (close or link loss).
    func failAllPendingCalls(with error: TransportError) {
        for id in pendingCalls.keys.sorted() { cancelCall(id, with: error) }
    }

    // MARK: - Object tree

    /// Registers the fallback handler for `path` and below.
    /// The corresponding C function is `dbus_connection_try_register_fallback`.
    func registerFallback(at path: ObjectPath) throws(TransportError) {
        loop.checkIsolated()
        guard let raw, isConnected else { throw .disconnected }
        guard path.rawValue.withCString({ dbus_validate_path($0, nil) }) != 0 else {
            throw TransportError.invalidMessage.with(detail: "invalid object path \(path)")
        }
        var error = cdbus_error()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let me = Unmanaged.passUnretained(self).toOpaque()
        guard cdbus_register_fallback(raw, path.rawValue, LibDBusCallbacks.objectTree, me, &error) != 0 else {
            if error.nameText == "org.freedesktop.DBus.Error.ObjectPathInUse" {
                throw TransportError.objectPathInUse.with(detail: path.rawValue)
            }
            throw TransportError.outOfMemory.with(detail: error.messageText)
        }
        registeredPaths.insert(path)
    }

    /// Removes a registration made by ``registerFallback(at:)``; does nothing for unknown paths.
    /// The corresponding C function is `dbus_connection_unregister_object_path`.
    func unregisterFallback(at path: ObjectPath) {
        loop.checkIsolated()
        guard let raw, registeredPaths.remove(path) != nil else { return }
        _ = dbus_connection_unregister_object_path(raw, path.rawValue)
    }
}

// SPDX-License-Identifier: Apache-2.0
// An owning reference to a libdbus message, so DBusMessage pointers never escape unmanaged.

internal import CDBus

/// Owns one reference to a `DBusMessage` and drops it on deinit.
///
/// Not `Sendable`: a libdbus message is used on one thread at a time (the bus loop, or a test).
final class LibDBusMessage {
    let pointer: OpaquePointer

    /// Takes over a reference the caller already owns (from `dbus_message_new`, `steal_reply`, …).
    init(adopting pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Adds a reference to a message libdbus lends us (in a filter or object-path callback).
    /// The corresponding C function is `dbus_message_ref`.
    init(retaining pointer: OpaquePointer) {
        self.pointer = dbus_message_ref(pointer)
    }

    deinit { dbus_message_unref(pointer) }

    /// The serial libdbus assigned (0 before sending). The corresponding C function is `dbus_message_get_serial`.
    var serial: UInt32 { dbus_message_get_serial(pointer) }

    /// A copy with serial 0, for the connection to number when it sends it; not locked even when this one is.
    /// The corresponding C function is `dbus_message_copy`.
    func copyWithoutSerial() throws(TransportError) -> LibDBusMessage {
        guard let copy = dbus_message_copy(pointer) else { throw .outOfMemory }
        return LibDBusMessage(adopting: copy)
    }

    /// The message in wire format, for tests that round-trip through real validation.
    /// The corresponding C function is `dbus_message_marshal`.
    func marshalled() throws(TransportError) -> [UInt8] {
        if dbus_message_get_serial(pointer) == 0 { dbus_message_set_serial(pointer, 1) }
        var buffer: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        guard dbus_message_marshal(pointer, &buffer, &length) != 0, let buffer else { throw .outOfMemory }
        defer { dbus_free(buffer) }
        return buffer.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
            Array(UnsafeBufferPointer(start: $0, count: Int(length)))
        }
    }

    /// Parses and validates a message in wire format, exactly as libdbus does for received messages.
    /// The corresponding C function is `dbus_message_demarshal`.
    convenience init(demarshalling bytes: [UInt8]) throws(TransportError) {
        var error = cdbus_error()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let message = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                dbus_message_demarshal($0.baseAddress, Int32(buffer.count), &error)
            }
        }
        guard let message else { throw TransportError.invalidMessage.with(detail: error.messageText) }
        self.init(adopting: message)
    }
}

extension cdbus_error {
    /// The libdbus error message, when the error is set.
    var messageText: String? { message.map { String(cString: $0) } }
    /// The libdbus error name, when the error is set.
    var nameText: String? { name.map { String(cString: $0) } }
}

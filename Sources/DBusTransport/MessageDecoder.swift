// SPDX-License-Identifier: Apache-2.0
// Received libdbus messages into DBusWire Messages: the whole message read from its wire bytes in one pass.

internal import CDBus
import DBusWire
import Glibc

/// Reads libdbus messages into ``Message`` values.
///
/// libdbus has validated every message it hands over, so the bytes are read directly (``Message/parse(wireBytes:)``)
/// rather than one library call per value, which costs several times as much for the maps of a large reply. A
/// message that carries Unix file descriptors has its body read again through libdbus's iterators, which hand out
/// each descriptor as a duplicate the caller owns and must close.
enum MessageDecoder {
    /// The message as a value; `nil` for a message type this library does not know or a body it cannot read.
    /// The corresponding C functions are `dbus_message_marshal` (a copy of the message's bytes) and `dbus_free`.
    static func decode(_ message: LibDBusMessage) -> Message? {
        var buffer: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        guard dbus_message_marshal(message.pointer, &buffer, &length) != 0, let buffer else { return nil }
        defer { dbus_free(buffer) }
        guard var parsed = Message.parse(wireBytes: UnsafeRawBufferPointer(start: buffer, count: Int(length)))
        else { return nil }
        if parsed.unixFDs > 0 {
            guard let body = bodyThroughIterators(of: message.pointer) else { return nil }
            parsed.message.body = body
        }
        return parsed.message
    }

    /// Closes the descriptors a decoded message carries when nobody is going to receive it.
    static func closeUnixFDs(in values: [DBusValue]) {
        for value in values {
            switch value {
            case .unixFD(let fd): close(fd.rawValue)
            case .array(.byte, _), .bytes: continue
            case .array(_, let elements), .structure(let elements): closeUnixFDs(in: elements)
            case .dictionary(_, _, let entries): closeUnixFDs(in: entries.flatMap { [$0.key, $0.value] })
            case .variant(let inner): closeUnixFDs(in: [inner])
            default: continue
            }
        }
    }
}

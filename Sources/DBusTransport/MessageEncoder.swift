// SPDX-License-Identifier: Apache-2.0
// DBusWire Messages into libdbus messages: written as wire bytes in one pass, then parsed and checked by libdbus.

internal import CDBus
import DBusWire

/// Builds libdbus messages from ``Message`` values.
///
/// The message is written in wire format by ``Message/wireBytes(serial:)`` and handed to `dbus_message_demarshal`,
/// which checks it exactly as it checks every message received: building it with one library call per value costs
/// several times as much for the maps of a large reply. What that check refuses is then looked for by
/// ``MessageValidator``, so the error names the problem. A body that carries Unix file descriptors takes the
/// value-by-value path (`encodeThroughIterators`), since descriptors travel beside the bytes.
enum MessageEncoder {
    /// Validates and marshals `message`.
    ///
    /// Unix file descriptors in the body are duplicated into the libdbus message; the caller keeps its own.
    /// - Parameter keepSerial: copy `message.serial` into the header (tests only: a connection assigns serials).
    /// - Throws: ``TransportError/invalidMessage`` for anything libdbus would reject, or
    ///   ``TransportError/outOfMemory``.
    static func encode(_ message: Message, keepSerial: Bool = false) throws(TransportError) -> LibDBusMessage {
        // The bus drops a connection that sends a reserved name, which libdbus's own check allows: always checked.
        try MessageValidator.validateHeader(message)
        let bytes: [UInt8]
        do {
            // A parsed message needs a serial; a connection assigns the real one to the copy made below.
            bytes = try message.wireBytes(serial: keepSerial && message.serial != 0 ? message.serial : 1)
        } catch {
            switch error {
            case .carriesDescriptors: return try encodeThroughIterators(message, keepSerial: keepSerial)
            case .typeMismatch: throw explained(message, fallback: "a value does not have the type its container declares")
            }
        }
        guard bytes.count <= Int(Int32.max) else { throw explained(message, fallback: "the message is too long") }
        let parsed: LibDBusMessage
        do {
            parsed = try LibDBusMessage(demarshalling: bytes)
        } catch {
            throw explained(message, fallback: error.detail ?? "libdbus refused the message")
        }
        if keepSerial, message.serial != 0 { return parsed }
        return try parsed.copyWithoutSerial()
    }

    /// The validator's account of what is wrong with `message`, or `fallback` when it finds nothing.
    private static func explained(_ message: Message, fallback: String) -> TransportError {
        do {
            _ = try MessageValidator.validate(body: message.body)
        } catch {
            return error
        }
        return TransportError.invalidMessage.with(detail: fallback)
    }
}

// SPDX-License-Identifier: Apache-2.0
// Message to wire bytes and back through libdbus, the same path a connection takes, for tools and benchmarks.

public import DBusWire

/// Marshals messages exactly as the bus connection does (libdbus), without a bus: the micro-benchmarks measure the
/// daemon's marshalling cost through it.
public enum MessageCodec {
    /// The message in D-Bus wire format (serial 1 when it has none).
    /// - Throws: ``TransportError/invalidMessage`` for anything libdbus would reject.
    public static func marshal(_ message: Message) throws(TransportError) -> [UInt8] {
        try MessageEncoder.encode(message, keepSerial: message.serial != 0).marshalled()
    }

    /// Parses and validates wire bytes as libdbus does for received messages.
    /// - Throws: ``TransportError/invalidMessage`` for bytes libdbus rejects or a message kind it does not know.
    public static func unmarshal(_ bytes: [UInt8]) throws(TransportError) -> Message {
        let parsed = try LibDBusMessage(demarshalling: bytes)
        guard let message = MessageDecoder.decode(parsed) else {
            throw TransportError.invalidMessage.with(detail: "the message could not be decoded")
        }
        return message
    }
}

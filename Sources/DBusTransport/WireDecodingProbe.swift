// SPDX-License-Identifier: Apache-2.0
// An entry point for fuzzing: raw message bytes through libdbus's validation into a DBusWire Message.

public import DBusWire

/// Runs bytes from the wire through the same path a received message takes: libdbus demarshals and validates them,
/// then ``MessageDecoder`` turns the result into a ``Message``. For fuzz targets only, hence the SPI.
@_spi(Fuzzing)
public enum WireDecodingProbe {
    /// The decoded message, or `nil` when libdbus or the decoder rejects the bytes. Descriptors never appear:
    /// bytes alone cannot carry them.
    public static func decode(_ bytes: [UInt8]) -> Message? {
        guard let message = try? LibDBusMessage(demarshalling: bytes) else { return nil }
        return MessageDecoder.decode(message)
    }

    /// The body of the message `bytes` hold as libdbus's iterators read it (the path of descriptor-carrying
    /// messages), for comparing with what ``decode(_:)`` reads; `nil` when libdbus or the iterators reject it.
    public static func bodyThroughIterators(_ bytes: [UInt8]) -> [DBusValue]? {
        guard let message = try? LibDBusMessage(demarshalling: bytes) else { return nil }
        return MessageDecoder.bodyThroughIterators(of: message.pointer)
    }

    /// Encodes `message` back to wire bytes, so a target can check that what was decoded re-encodes.
    public static func encode(_ message: Message) -> [UInt8]? {
        try? MessageEncoder.encode(message, keepSerial: true).marshalled()
    }
}

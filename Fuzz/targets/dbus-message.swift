// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: arbitrary bytes through libdbus's demarshalling into our wire reader, and back; the reader agrees
// with libdbus's iterators, and never fails on bytes libdbus has not checked either.
// fuzz-modules: DBusTransport DBusWire Logging
// fuzz-libraries: dbus-1

@_spi(Fuzzing) import DBusTransport
import DBusWire

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    // Unchecked bytes: the reader may refuse them, but must never read out of bounds or recurse without limit.
    _ = bytes.withUnsafeBytes { Message.parse(wireBytes: $0) }
    guard let message = WireDecodingProbe.decode(bytes) else { return 0 }
    // Doubles compare unequal to themselves when NaN; compare the re-encoded bytes instead of the values then.
    guard let iterated = WireDecodingProbe.bodyThroughIterators(bytes) else {
        fatalError("libdbus's iterators refuse a message the wire reader read")
    }
    if iterated != message.body {
        var other = message
        other.body = iterated
        guard WireDecodingProbe.encode(other) == WireDecodingProbe.encode(message) else {
            fatalError("the wire reader and libdbus's iterators read different values")
        }
    }
    // What we decoded must survive our encoder unchanged: encode, decode and encode again give the same bytes.
    // (Our encoder may refuse what libdbus accepted, such as the reserved Local path; that is not a finding.)
    guard let encoded = WireDecodingProbe.encode(message) else { return 0 }
    guard let again = WireDecodingProbe.decode(encoded), WireDecodingProbe.encode(again) == encoded else {
        fatalError("a decoded message does not round-trip through the encoder")
    }
    return 0
}

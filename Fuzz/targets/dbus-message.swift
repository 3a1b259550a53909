// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: arbitrary bytes through libdbus's demarshalling into our DBusValue decoder, and back.
// fuzz-modules: DBusTransport DBusWire Logging
// fuzz-libraries: dbus-1

@_spi(Fuzzing) import DBusTransport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let message = WireDecodingProbe.decode(bytes) else { return 0 }
    // What we decoded must survive our encoder unchanged: encode, decode and encode again give the same bytes.
    // (Our encoder may refuse what libdbus accepted, such as the reserved Local path; that is not a finding.)
    guard let encoded = WireDecodingProbe.encode(message) else { return 0 }
    guard let again = WireDecodingProbe.decode(encoded), WireDecodingProbe.encode(again) == encoded else {
        fatalError("a decoded message does not round-trip through the encoder")
    }
    return 0
}

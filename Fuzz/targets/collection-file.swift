// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: arbitrary bytes through the collection file's header, record chain and metadata decoders.
// fuzz-modules: SecretStore CollectionSync SecretCrypto SecretServiceProtocol DBusWire Logging
// fuzz-libraries: gcrypt

@_spi(Fuzzing) import SecretStore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    // Crashes and sanitizer reports are the findings; so is a record that decodes but does not encode back the same.
    if case .notCanonical(let sequence) = CollectionFileProbe.decodeFile(bytes) {
        fatalError("record \(sequence) decodes, but encodes to different bytes")
    }
    _ = CollectionFileProbe.decodeItemMetadata(bytes)
    return 0
}

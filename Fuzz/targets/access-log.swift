// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: arbitrary bytes through the access log's reader (header, record framing, order and key-change
// checks) and its entry-line decoder.
// fuzz-modules: SecretServiceDaemon DBusTransport DBusWire SecretStore CollectionSync SecretCrypto SecretServiceProtocol Logging ServiceLifecycle UnixSignals ConcurrencyHelpers AsyncAlgorithms DequeModule OrderedCollections InternalCollectionsUtilities ContainersPreview
// fuzz-libraries: gcrypt dbus-1

@_spi(Fuzzing) import SecretServiceDaemon

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    // Crashes, traps and sanitizer reports are the findings; every input must be read or refused.
    _ = AccessLogProbe.read(bytes)
    return 0
}

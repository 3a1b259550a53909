// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: arbitrary bytes through the synchronized-collection journal reader (header, record chain,
// sequence checks, record plaintext), the password wrap and the checkpoint decoders.
// fuzz-modules: CollectionSync SecretCrypto
// fuzz-libraries: gcrypt

@_spi(Fuzzing) import CollectionSync

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    // Crashes, traps and sanitizer reports are the findings; every input must be read or refused.
    _ = JournalProbe.readJournal(bytes)
    JournalProbe.decodeOthers(bytes)
    return 0
}

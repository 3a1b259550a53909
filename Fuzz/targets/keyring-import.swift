// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: arbitrary bytes through format detection and every keyring import parser.
// fuzz-modules: KeyringFiles SecretCrypto
// fuzz-libraries: gcrypt
// fuzz-flags: -detect_leaks=0

import KeyringFiles
import SecretCrypto

// Leak detection is off: the libsecret parser's GVariant type is a lazily built global, which LeakSanitizer reports
// once as leaked; Swift's reference counting leaves a parser no other way to leak.

/// The corpus files were written with the password "fuzz". Key derivation is capped near gnome-keyring's own
/// iteration counts so one input costs about a millisecond; libsecret's 100,000-round files stop at the cap, since
/// their MAC would stop mutated items anyway.
private let limits = ParseLimits(maximumItems: 1_000, maximumKDFIterations: 5_000, maximumArgon2MemoryKiB: 64)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    _ = try? KeyringFile.parse(bytes, password: SecretBytes(copying: Array("fuzz".utf8)), limits: limits)
    return 0
}

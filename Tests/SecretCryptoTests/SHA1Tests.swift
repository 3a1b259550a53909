// SPDX-License-Identifier: Apache-2.0
// Known-answer tests for SHA-1 (FIPS 180 examples).

import Foundation
import Testing
import SecretCrypto

@Suite("SHA-1")
struct SHA1Tests {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test("FIPS 180 examples and the empty message")
    func knownAnswers() throws {
        #expect(hex(try SHA1.digest(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(hex(try SHA1.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        #expect(hex(try SHA1.digest([])) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    }
}

// SPDX-License-Identifier: Apache-2.0
// Tests for the random byte sources.

import Testing
@testable import SecretCrypto

@Suite("SecureRandom")
struct SecureRandomTests {
    @Test("bytes(count:) returns the requested length and differs between calls")
    func bytes() throws {
        #expect(SecureRandom.bytes(count: 0) == [])
        let a = SecureRandom.bytes(count: 32)
        let b = SecureRandom.bytes(count: 32)
        #expect(a.count == 32)
        #expect(a != b)
    }

    @Test("secretBytes(count:) fills secure memory and differs between calls")
    func secretBytes() throws {
        let a = try SecureRandom.secretBytes(count: 32)
        let b = try SecureRandom.secretBytes(count: 32)
        #expect(a.count == 32)
        #expect(a.isInSecureMemory)
        #expect(!a.constantTimeEquals(b))
        #expect(a.copyBytes() != [UInt8](repeating: 0, count: 32))
    }

    @Test("nonces are unpredictable and of the requested length")
    func nonce() {
        let a = SecureRandom.nonce(count: 16)
        #expect(a.count == 16)
        #expect(a != SecureRandom.nonce(count: 16))
    }
}

// SPDX-License-Identifier: Apache-2.0
// Known-answer and rejection tests for AES-128-CBC with PKCS#7 padding.

import Testing
@testable import SecretCrypto

@Suite("AES-128-CBC-PKCS7")
struct AES128CBCTests {
    let key = try! SecretBytes(copying: AESCBCVectors.key)

    // MARK: - Known answers

    @Test("NIST SP 800-38A F.2.1: the CBC part matches, followed by one pad block")
    func nistEncrypt() throws {
        let ciphertext = try AES128CBC.encrypt(
            try SecretBytes(copying: AESCBCVectors.plaintext), key: key, iv: AESCBCVectors.iv)
        #expect(Array(ciphertext.prefix(64)) == AESCBCVectors.rawCiphertext)
        #expect(ciphertext == AESCBCVectors.paddedCiphertext)
    }

    @Test("NIST SP 800-38A F.2.1 decrypts (with its pad block)")
    func nistDecrypt() throws {
        let plaintext = try AES128CBC.decrypt(AESCBCVectors.paddedCiphertext, key: key, iv: AESCBCVectors.iv)
        #expect(plaintext.copyBytes() == AESCBCVectors.plaintext)
        #expect(plaintext.isInSecureMemory)
    }

    @Test("empty plaintext encrypts to exactly one 16-byte block and back")
    func emptyPlaintext() throws {
        let ciphertext = try AES128CBC.encrypt(try SecretBytes(count: 0), key: key, iv: AESCBCVectors.iv)
        #expect(ciphertext == AESCBCVectors.emptyCiphertext)
        #expect(try AES128CBC.decrypt(ciphertext, key: key, iv: AESCBCVectors.iv).isEmpty)
    }

    @Test("a short plaintext matches an independent implementation")
    func hello() throws {
        let ciphertext = try AES128CBC.encrypt(try SecretBytes(copying: "hello".utf8), key: key, iv: AESCBCVectors.iv)
        #expect(ciphertext == AESCBCVectors.helloCiphertext)
    }

    @Test("round trip for every length 0...48", arguments: 0...48)
    func roundTrip(length: Int) throws {
        let plaintext = try SecretBytes(copying: (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let iv = SecureRandom.bytes(count: 16)
        let ciphertext = try AES128CBC.encrypt(plaintext, key: key, iv: iv)
        #expect(ciphertext.count == (length / 16 + 1) * 16)
        #expect(try AES128CBC.decrypt(ciphertext, key: key, iv: iv).constantTimeEquals(plaintext))
    }

    // MARK: - Rejections

    @Test("IVs that are not 16 bytes are rejected", arguments: [0, 8, 15, 17, 32])
    func badIV(length: Int) {
        let iv = [UInt8](repeating: 0, count: length)
        #expect(throws: CryptoError.invalidIV) {
            try AES128CBC.decrypt(AESCBCVectors.emptyCiphertext, key: key, iv: iv)
        }
        #expect(throws: CryptoError.invalidIV) { try AES128CBC.encrypt(try SecretBytes(count: 1), key: key, iv: iv) }
    }

    @Test("ciphertexts that are empty or not a block multiple are rejected", arguments: [0, 1, 15, 17, 31])
    func badLength(length: Int) {
        #expect(throws: CryptoError.invalidCiphertext) {
            try AES128CBC.decrypt([UInt8](repeating: 0x42, count: length), key: key, iv: AESCBCVectors.iv)
        }
    }

    @Test("keys that are not 16 bytes are rejected", arguments: [0, 15, 24, 32])
    func badKey(length: Int) throws {
        let wrongKey = try SecretBytes(count: length)
        #expect(throws: CryptoError.invalidKey) {
            try AES128CBC.encrypt(try SecretBytes(count: 1), key: wrongKey, iv: AESCBCVectors.iv)
        }
        #expect(throws: CryptoError.invalidKey) {
            try AES128CBC.decrypt(AESCBCVectors.emptyCiphertext, key: wrongKey, iv: AESCBCVectors.iv)
        }
    }

    /// "hello" is padded with eleven 0x0B bytes; flipping IV bits flips the same bits of the decrypted block.
    private func decryptHello(flippingIVByte index: Int, with mask: UInt8) throws -> SecretBytes {
        var iv = AESCBCVectors.iv
        iv[index] ^= mask
        return try AES128CBC.decrypt(AESCBCVectors.helloCiphertext, key: key, iv: iv)
    }

    @Test("pad byte 0 is rejected")
    func padZero() {
        #expect(throws: CryptoError.invalidPadding) { try decryptHello(flippingIVByte: 15, with: 0x0B) }
    }

    @Test("pad byte greater than 16 is rejected")
    func padTooLarge() {
        #expect(throws: CryptoError.invalidPadding) { try decryptHello(flippingIVByte: 15, with: 0x0B ^ 0x11) }
        #expect(throws: CryptoError.invalidPadding) { try decryptHello(flippingIVByte: 15, with: 0x0B ^ 0xFF) }
    }

    @Test("pad bytes that differ are rejected")
    func padMismatch() {
        #expect(throws: CryptoError.invalidPadding) { try decryptHello(flippingIVByte: 5, with: 0x01) }
        #expect(throws: CryptoError.invalidPadding) { try decryptHello(flippingIVByte: 14, with: 0x01) }
    }

    @Test("a last byte of 16 needs a whole block of 0x10; the raw NIST ciphertext fails")
    func rawNistHasNoPadding() {
        #expect(throws: CryptoError.invalidPadding) {
            try AES128CBC.decrypt(AESCBCVectors.rawCiphertext, key: key, iv: AESCBCVectors.iv)
        }
    }

    @Test("a changed but still valid pad (0x01) is accepted and strips one byte")
    func padOne() throws {
        let plaintext = try decryptHello(flippingIVByte: 15, with: 0x0B ^ 0x01)
        #expect(plaintext.count == 15)
        #expect(Array(plaintext.copyBytes().prefix(5)) == Array("hello".utf8))
    }
}

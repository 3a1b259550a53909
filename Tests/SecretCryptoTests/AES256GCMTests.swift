// SPDX-License-Identifier: Apache-2.0
// Known-answer, round-trip and tamper tests for AES-256-GCM.

import Testing
@testable import SecretCrypto

extension GCMVector: CustomTestStringConvertible {
    var testDescription: String { name }
}

@Suite("AES-256-GCM")
struct AES256GCMTests {
    @Test("GCM specification vectors seal", arguments: GCMVectors.all)
    func seal(vector: GCMVector) throws {
        let sealed = try AES256GCM.seal(
            try SecretBytes(copying: vector.plaintext), key: try SecretBytes(copying: vector.key), nonce: vector.nonce,
            associatedData: vector.associatedData)
        #expect(sealed == vector.ciphertext + vector.tag)
    }

    @Test("GCM specification vectors open", arguments: GCMVectors.all)
    func open(vector: GCMVector) throws {
        let plaintext = try AES256GCM.open(
            vector.ciphertext + vector.tag, key: try SecretBytes(copying: vector.key), nonce: vector.nonce,
            associatedData: vector.associatedData)
        #expect(plaintext.copyBytes() == vector.plaintext)
    }

    @Test("round trip with random key and nonce", arguments: [0, 1, 15, 16, 17, 1000, 1 << 16])
    func roundTrip(length: Int) throws {
        let key = try SecureRandom.secretBytes(count: 32)
        let nonce = SecureRandom.bytes(count: 12)
        let plaintext = try SecretBytes(copying: (0..<length).map { UInt8(truncatingIfNeeded: $0) })
        let sealed = try AES256GCM.seal(plaintext, key: key, nonce: nonce, associatedData: Array("header".utf8))
        #expect(sealed.count == length + 16)
        let opened = try AES256GCM.open(sealed, key: key, nonce: nonce, associatedData: Array("header".utf8))
        #expect(opened.constantTimeEquals(plaintext))
    }

    @Test("any flipped bit, wrong AAD, nonce or key fails authentication")
    func tamper() throws {
        let vector = GCMVectors.all[2]
        let key = try SecretBytes(copying: vector.key)
        let sealed = vector.ciphertext + vector.tag
        for index in [0, 17, sealed.count - 17, sealed.count - 16, sealed.count - 1] {
            var tampered = sealed
            tampered[index] ^= 0x01
            #expect(throws: CryptoError.authenticationFailed) {
                try AES256GCM.open(tampered, key: key, nonce: vector.nonce, associatedData: vector.associatedData)
            }
        }
        #expect(throws: CryptoError.authenticationFailed) {
            try AES256GCM.open(sealed, key: key, nonce: vector.nonce, associatedData: vector.associatedData + [0])
        }
        #expect(throws: CryptoError.authenticationFailed) {
            try AES256GCM.open(
                sealed, key: key, nonce: [UInt8](repeating: 0, count: 12), associatedData: vector.associatedData)
        }
        #expect(throws: CryptoError.authenticationFailed) {
            try AES256GCM.open(
                sealed, key: try SecretBytes(count: 32), nonce: vector.nonce, associatedData: vector.associatedData)
        }
        #expect(throws: CryptoError.authenticationFailed) {
            try AES256GCM.open(
                Array(sealed.dropFirst()), key: key, nonce: vector.nonce, associatedData: vector.associatedData)
        }
    }

    @Test("wrong lengths are rejected")
    func lengths() throws {
        let key = try SecretBytes(count: 32)
        let nonce = [UInt8](repeating: 0, count: 12)
        let one = try SecretBytes(count: 1)
        let tagOnly = [UInt8](repeating: 0, count: 16)
        #expect(throws: CryptoError.invalidKey) {
            try AES256GCM.seal(one, key: try SecretBytes(count: 16), nonce: nonce, associatedData: [])
        }
        #expect(throws: CryptoError.invalidNonce) { try AES256GCM.seal(one, key: key, nonce: [0], associatedData: []) }
        #expect(throws: CryptoError.invalidNonce) {
            try AES256GCM.open(tagOnly, key: key, nonce: [], associatedData: [])
        }
        #expect(throws: CryptoError.invalidCiphertext) {
            try AES256GCM.open(Array(tagOnly.dropLast()), key: key, nonce: nonce, associatedData: [])
        }
    }
}

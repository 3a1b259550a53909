// SPDX-License-Identifier: Apache-2.0
// Keyed cipher contexts used for many messages: each message must come out exactly as with a fresh context,
// whatever the previous message on the same context did (other nonce, other AAD, failed tag, bad padding).

import Testing
@testable import SecretCrypto

@Suite("Reused keyed cipher contexts")
struct ReusedKeyTests {
    @Test("one GCM key seals and opens every specification vector in a row, in both orders")
    func gcmVectorsInARow() throws {
        // All vectors of a key share one context, so state left by one vector would show in the next.
        let byKey = Dictionary(grouping: GCMVectors.all, by: \.key)
        for (keyBytes, vectors) in byKey {
            let key = try AES256GCM.Key(try SecretBytes(copying: keyBytes))
            for vector in vectors + vectors.reversed() {
                let sealed = try key.seal(try SecretBytes(copying: vector.plaintext), nonce: vector.nonce,
                                          associatedData: vector.associatedData)
                #expect(sealed == vector.ciphertext + vector.tag, "\(vector.name)")
                let opened = try key.open(sealed, nonce: vector.nonce, associatedData: vector.associatedData)
                #expect(opened.copyBytes() == vector.plaintext, "\(vector.name)")
            }
        }
    }

    @Test("a failed GCM tag check leaves the context good for the next message")
    func gcmAfterFailure() throws {
        let key = try AES256GCM.Key(try SecureRandom.secretBytes(count: 32))
        let nonce = SecureRandom.bytes(count: 12)
        let first = try key.seal(try SecretBytes(copying: Array("first".utf8)), nonce: nonce, associatedData: [1])
        var tampered = first
        tampered[0] ^= 0x80
        #expect(throws: CryptoError.authenticationFailed) { try key.open(tampered, nonce: nonce, associatedData: [1]) }
        #expect(throws: CryptoError.authenticationFailed) { try key.open(first, nonce: nonce, associatedData: []) }
        #expect(throws: CryptoError.invalidNonce) { try key.open(first, nonce: [0], associatedData: [1]) }
        #expect(try key.open(first, nonce: nonce, associatedData: [1]).copyBytes() == Array("first".utf8))
    }

    @Test("what a reused GCM key seals, a fresh context opens, and the reverse")
    func gcmMatchesOneShot() throws {
        let keyBytes = try SecureRandom.secretBytes(count: 32)
        let key = try AES256GCM.Key(keyBytes)
        for length in [0, 1, 16, 33] {
            let message = try SecretBytes(copying: (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            let nonce = SecureRandom.bytes(count: 12)
            let sealed = try key.seal(message, nonce: nonce, associatedData: [UInt8(length)])
            #expect(try AES256GCM.open(sealed, key: keyBytes, nonce: nonce, associatedData: [UInt8(length)])
                .constantTimeEquals(message))
            let oneShot = try AES256GCM.seal(message, key: keyBytes, nonce: nonce, associatedData: [])
            #expect(try key.open(oneShot, nonce: nonce, associatedData: []).constantTimeEquals(message))
        }
    }

    @Test("one CBC key gives the known ciphertexts under different IVs, one after another")
    func cbcInARow() throws {
        let key = try AES128CBC.Key(try SecretBytes(copying: AESCBCVectors.key))
        for _ in 0..<3 {
            #expect(try key.encrypt(try SecretBytes(copying: AESCBCVectors.plaintext), iv: AESCBCVectors.iv)
                == AESCBCVectors.paddedCiphertext)
            #expect(try key.encrypt(try SecretBytes(copying: []), iv: AESCBCVectors.iv) == AESCBCVectors.emptyCiphertext)
            let random = SecureRandom.bytes(count: 16)
            let sealed = try key.encrypt(try SecretBytes(copying: Array("hello".utf8)), iv: random)
            #expect(sealed == (try AES128CBC.encrypt(try SecretBytes(copying: Array("hello".utf8)),
                                                     key: try SecretBytes(copying: AESCBCVectors.key), iv: random)))
            #expect(try key.decrypt(sealed, iv: random).copyBytes() == Array("hello".utf8))
        }
    }

    @Test("bad padding or a bad IV on a CBC key leaves it good for the next message")
    func cbcAfterFailure() throws {
        let key = try AES128CBC.Key(try SecretBytes(copying: AESCBCVectors.key))
        #expect(throws: CryptoError.invalidPadding) {
            try key.decrypt(AESCBCVectors.rawCiphertext, iv: AESCBCVectors.iv)
        }
        #expect(throws: CryptoError.invalidIV) { try key.decrypt(AESCBCVectors.paddedCiphertext, iv: [1, 2]) }
        #expect(try key.decrypt(AESCBCVectors.paddedCiphertext, iv: AESCBCVectors.iv).copyBytes()
            == AESCBCVectors.plaintext)
    }

    @Test("a key used from many tasks at once gives every task its own correct result")
    func concurrentUse() async throws {
        let key = try AES256GCM.Key(try SecureRandom.secretBytes(count: 32))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for round in 0..<200 {
                        let message = Array("task \(task) round \(round)".utf8)
                        let nonce = SecureRandom.bytes(count: 12)
                        let sealed = try key.seal(try SecretBytes(copying: message), nonce: nonce, associatedData: [UInt8(task)])
                        let opened = try key.open(sealed, nonce: nonce, associatedData: [UInt8(task)])
                        #expect(opened.copyBytes() == message)
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("keys of the wrong length are refused", arguments: [0, 16, 31, 33])
    func wrongLengths(length: Int) {
        #expect(throws: CryptoError.invalidKey) { try AES256GCM.Key(try SecretBytes(count: length)) }
        #expect(throws: CryptoError.invalidKey) { try AES128CBC.Key(try SecretBytes(count: length == 16 ? 24 : length)) }
    }
}

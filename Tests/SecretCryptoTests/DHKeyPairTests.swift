// SPDX-License-Identifier: Apache-2.0
// Tests for Diffie-Hellman over the RFC 2409 Second Oakley Group.

import Testing
@testable import SecretCrypto

@Suite("DHKeyPair")
struct DHKeyPairTests {
    /// RFC 2409 §6.2, as printed there.
    static let rfc2409Group2Prime = """
        FFFFFFFF FFFFFFFF C90FDAA2 2168C234 C4C6628B 80DC1CD1
        29024E08 8A67CC74 020BBEA6 3B139B22 514A0879 8E3404DD
        EF9519B3 CD3A431B 302B0A6D F25F1437 4FE1356D 6D51C245
        E485B576 625E7EC6 F44C42E9 A637ED6B 0BFF5CB6 F406B7ED
        EE386BFB 5A899FA5 AE9F2411 7C4B1FE6 49286651 ECE65381
        FFFFFFFF FFFFFFFF
        """

    let server = try! DHKeyPair(privateExponent: DHVectors.exchangeServerExponent)

    // MARK: - Group

    @Test("the group prime is exactly RFC 2409 group 2 and g = 2")
    func groupPrime() {
        #expect(OakleyGroup2.prime == [UInt8](hex: Self.rfc2409Group2Prime))
        #expect(OakleyGroup2.prime.count == 128)
        #expect(OakleyGroup2.generator == 2)
    }

    // MARK: - Known answers

    @Test("public keys match an independent computation")
    func publicKeys() throws {
        #expect(server.publicKey == DHVectors.exchangeServerPublic)
        let client = try DHKeyPair(privateExponent: DHVectors.exchangeClientExponent)
        #expect(client.publicKey == DHVectors.exchangeClientPublic)
    }

    @Test("both sides compute the independent shared secret")
    func sharedSecret() throws {
        let client = try DHKeyPair(privateExponent: DHVectors.exchangeClientExponent)
        let z1 = try server.sharedSecret(peerPublicKey: DHVectors.exchangeClientPublic)
        let z2 = try client.sharedSecret(peerPublicKey: DHVectors.exchangeServerPublic)
        #expect(z1.copyBytes() == DHVectors.exchangeSharedSecret)
        #expect(z1.constantTimeEquals(z2))
        #expect(z1.isInSecureMemory)
    }

    @Test("a shared secret with leading zero bytes is left-padded to 128 bytes")
    func leadingZeros() throws {
        let pair = try DHKeyPair(privateExponent: DHVectors.leadingZeroExponent)
        let z = try pair.sharedSecret(peerPublicKey: DHVectors.leadingZeroPeer)
        #expect(z.count == 128)
        #expect(z.copyBytes()[0] == 0 && z.copyBytes()[1] == 0)
        #expect(z.copyBytes() == DHVectors.leadingZeroSharedSecret)
    }

    @Test("our public key is minimal: no leading zeros, no sign byte")
    func minimalPublicKey() throws {
        let pair = try DHKeyPair(privateExponent: DHVectors.shortPublicExponent)
        #expect(pair.publicKey.count == 127)
        #expect(pair.publicKey == DHVectors.shortPublicKey)
        for _ in 0..<8 {
            let random = try DHKeyPair()
            #expect(random.publicKey.count <= 128)
            #expect(random.publicKey.first != 0)
        }
    }

    // MARK: - Accepted peer keys

    @Test("a short (<128 byte) peer key is accepted")
    func shortPeerKey() throws {
        #expect(DHVectors.shortPeerKey.count < 128)
        let z = try server.sharedSecret(peerPublicKey: DHVectors.shortPeerKey)
        #expect(z.copyBytes() == DHVectors.shortPeerSharedSecret)
    }

    @Test("leading zero bytes within 128 bytes do not change the result")
    func zeroPaddedPeerKey() throws {
        let padded = [UInt8](repeating: 0, count: 128 - DHVectors.shortPeerKey.count) + DHVectors.shortPeerKey
        let z = try server.sharedSecret(peerPublicKey: padded)
        #expect(z.copyBytes() == DHVectors.shortPeerSharedSecret)
    }

    @Test("a 128-byte peer key with the high bit set is read as unsigned")
    func highBitPeerKey() throws {
        #expect(DHVectors.highBitPeerKey.count == 128 && DHVectors.highBitPeerKey[0] & 0x80 != 0)
        let z = try server.sharedSecret(peerPublicKey: DHVectors.highBitPeerKey)
        #expect(z.copyBytes() == DHVectors.highBitPeerSharedSecret)
    }

    @Test("peer key 2 (the generator) gives our own public key, padded")
    func generatorAsPeer() throws {
        let z = try server.sharedSecret(peerPublicKey: [2])
        let expected = [UInt8](repeating: 0, count: 128 - server.publicKey.count) + server.publicKey
        #expect(z.copyBytes() == expected)
    }

    // MARK: - Rejected peer keys

    static let badPeerKeys: [(String, [UInt8])] = [
        ("empty", []),
        ("0", [0]),
        ("0 padded to 128 bytes", [UInt8](repeating: 0, count: 128)),
        ("1", [1]),
        ("1 padded to 128 bytes", [UInt8](repeating: 0, count: 127) + [1]),
        ("p-1", DHVectors.primeMinusOne),
        ("p", OakleyGroup2.prime),
        ("p+1", DHVectors.primePlusOne),
        ("2^1024-1", [UInt8](repeating: 0xFF, count: 128)),
        ("129 bytes", [0] + DHVectors.highBitPeerKey),
        ("129 bytes of 0xFF", [UInt8](repeating: 0xFF, count: 129)),
    ]

    @Test("invalid peer keys are rejected", arguments: badPeerKeys)
    func rejected(name: String, key: [UInt8]) {
        #expect(throws: CryptoError.invalidPublicKey, "peer key \(name)") {
            try server.sharedSecret(peerPublicKey: key)
        }
    }

    // MARK: - Random key pairs

    @Test("random key pairs differ, agree, and keep the exponent in secure memory")
    func randomPairs() throws {
        let a = try DHKeyPair()
        let b = try DHKeyPair()
        #expect(a.publicKey != b.publicKey)
        #expect(a.privateExponentIsSecure)
        let z1 = try a.sharedSecret(peerPublicKey: b.publicKey)
        let z2 = try b.sharedSecret(peerPublicKey: a.publicKey)
        #expect(z1.count == 128)
        #expect(z1.constantTimeEquals(z2))
    }

    @Test("fixed exponents must be 1...128 bytes")
    func fixedExponentLength() {
        #expect(throws: CryptoError.invalidParameter) { try DHKeyPair(privateExponent: []) }
        #expect(throws: CryptoError.invalidParameter) {
            try DHKeyPair(privateExponent: [UInt8](repeating: 1, count: 129))
        }
    }
}

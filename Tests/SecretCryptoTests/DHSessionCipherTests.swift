// SPDX-License-Identifier: Apache-2.0
// Tests for the complete dh-ietf1024-sha256-aes128-cbc-pkcs7 session cipher.

import Testing
@testable import SecretCrypto

@Suite("DHSessionCipher")
struct DHSessionCipherTests {
    /// A client key pair and a server cipher that negotiated with it, plus the client's cipher.
    private func negotiate() throws -> (client: DHSessionCipher, server: DHSessionCipher) {
        let clientPair = try DHKeyPair()
        let server = try DHSessionCipher(peerPublicKey: clientPair.publicKey)
        let client = try DHSessionCipher(keyPair: clientPair, peerPublicKey: server.publicKey)
        return (client, server)
    }

    @Test("the independent exchange vector decrypts on both sides")
    func knownAnswer() throws {
        let serverPair = try DHKeyPair(privateExponent: DHVectors.exchangeServerExponent)
        let clientPair = try DHKeyPair(privateExponent: DHVectors.exchangeClientExponent)
        let server = try DHSessionCipher(keyPair: serverPair, peerPublicKey: DHVectors.exchangeClientPublic)
        let client = try DHSessionCipher(keyPair: clientPair, peerPublicKey: DHVectors.exchangeServerPublic)
        #expect(server.publicKey == DHVectors.exchangeServerPublic)
        for side in [server, client] {
            let plaintext = try side.decrypt(iv: DHVectors.exchangeIV, ciphertext: DHVectors.exchangeCiphertext)
            #expect(plaintext.copyBytes() == DHVectors.exchangePlaintext)
            #expect(try side.decrypt(iv: DHVectors.exchangeIV, ciphertext: DHVectors.exchangeEmptyCiphertext).isEmpty)
        }
    }

    @Test("the session key is HKDF-SHA256 of the padded shared secret")
    func sessionKey() throws {
        let key = try HKDF.sha256(
            inputKeyMaterial: try SecretBytes(copying: DHVectors.exchangeSharedSecret), salt: [], info: [],
            outputByteCount: 16)
        #expect(key.copyBytes() == DHVectors.exchangeAESKey)
        let ciphertext = try AES128CBC.encrypt(
            try SecretBytes(copying: DHVectors.exchangePlaintext), key: key, iv: DHVectors.exchangeIV)
        #expect(ciphertext == DHVectors.exchangeCiphertext)
    }

    @Test("client and server agree and round-trip secrets", arguments: [0, 1, 16, 1 << 20])
    func roundTrip(length: Int) throws {
        let (client, server) = try negotiate()
        let secret = try SecretBytes(count: length)
        secret.withUnsafeMutableBytes { bytes in
            for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ 5) }
        }
        let (iv, ciphertext) = try client.encrypt(secret)
        #expect(iv.count == 16)
        #expect(ciphertext.count == (length / 16 + 1) * 16)
        #expect(try server.decrypt(iv: iv, ciphertext: ciphertext).constantTimeEquals(secret))
        let reply = try server.encrypt(secret)
        #expect(try client.decrypt(iv: reply.iv, ciphertext: reply.ciphertext).constantTimeEquals(secret))
    }

    @Test("an empty secret is exactly one 16-byte block")
    func emptySecret() throws {
        let (client, _) = try negotiate()
        #expect(try client.encrypt(try SecretBytes(count: 0)).ciphertext.count == 16)
    }

    @Test("every encryption uses a fresh IV")
    func freshIV() throws {
        let (client, _) = try negotiate()
        let secret = try SecretBytes(copying: "same secret".utf8)
        let first = try client.encrypt(secret)
        let second = try client.encrypt(secret)
        #expect(first.iv != second.iv)
        #expect(first.ciphertext != second.ciphertext)
    }

    @Test("each secret of a run gets an IV of its own and decrypts on the other side")
    func severalAtOnce() throws {
        let (client, server) = try negotiate()
        let secrets = try (0..<40).map { try SecretBytes(copying: Array(repeating: UInt8(7), count: $0 % 3 * 9)) }
        let run = server.run(count: secrets.count)
        let sealed = try secrets.indices.map { try run.encrypt(secrets[$0], at: $0) }
        #expect(sealed.count == secrets.count)
        #expect(Set(sealed.map(\.iv)).count == secrets.count)
        #expect(sealed.allSatisfy { $0.iv.count == 16 })
        for (secret, (iv, ciphertext)) in zip(secrets, sealed) {
            #expect(try client.decrypt(iv: iv, ciphertext: ciphertext).constantTimeEquals(secret))
        }
        #expect(server.run(count: 0).count == 0)
    }

    @Test("a different session cannot decrypt")
    func wrongSession() throws {
        let (client, _) = try negotiate()
        let (_, otherServer) = try negotiate()
        let (iv, ciphertext) = try client.encrypt(try SecretBytes(copying: "secret".utf8))
        // Under the wrong key the padding is almost always invalid; if it is not, the plaintext must differ.
        if let plaintext = try? otherServer.decrypt(iv: iv, ciphertext: ciphertext) {
            #expect(plaintext.copyBytes() != Array("secret".utf8))
        }
    }

    @Test("invalid peer keys and malformed secrets are rejected")
    func rejections() throws {
        #expect(throws: CryptoError.invalidPublicKey) { try DHSessionCipher(peerPublicKey: [1]) }
        #expect(throws: CryptoError.invalidPublicKey) { try DHSessionCipher(peerPublicKey: []) }
        let (client, _) = try negotiate()
        let block = [UInt8](repeating: 0, count: 16)
        #expect(throws: CryptoError.invalidIV) { try client.decrypt(iv: [0], ciphertext: block) }
        #expect(throws: CryptoError.invalidCiphertext) { try client.decrypt(iv: block, ciphertext: []) }
    }
}

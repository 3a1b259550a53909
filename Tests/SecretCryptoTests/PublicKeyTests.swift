// SPDX-License-Identifier: Apache-2.0
// Known answers and round trips for the public-key primitives: ECDH (RFC 5903 §8.1), the X9.63 KDF (NIST CAVS
// ansx963_2001 SHA-256), Apple's ECIES with a fixed ephemeral key, ECDSA and RSA.

import Foundation
import Testing
@testable import SecretCrypto

@Suite("Public-key primitives")
struct PublicKeyTests {
    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    // RFC 5903 §8.1 (256-bit random ECP group): initiator i, responder r, shared x.
    static let initiatorScalar = hex("C88F01F510D9AC3F70A292DAA2316DE544E9AAB8AFE84049C62A9C57862D1433")
    static let initiatorPoint = hex("04DAD0B65394221CF9B051E1FECA5787D098DFE637FC90B9EF945D0C3772581180"
                                    + "5271A0461CDB8252D61F1C456FA3E59AB1F45B33ACCF5F58389E0577B8990BB3")
    static let responderScalar = hex("C6EF9C5D78AE012A011164ACB397CE2088685D8F06BF9BE0B283AB46476BEE53")
    static let responderPoint = hex("04D12DFB5289C8D4F81208B70270398C342296970A0BCCB74C736FC7554494BF63"
                                    + "56FBF3CA366CC23E8157854C13C58D6AAC23F046ADA30F8353E74F33039872AB")
    static let sharedX = hex("D6840F6B42F6EDAFD13116E0E12565202FEF8E9ECE7DCE03812464D04B9442DE")

    static func initiator() throws -> ECPrivateKey {
        try ECPrivateKey(x963: SecretBytes(copying: initiatorPoint + initiatorScalar))
    }

    static func responder() throws -> ECPrivateKey {
        try ECPrivateKey(x963: SecretBytes(copying: responderPoint + responderScalar))
    }

    @Test("ECDH gives RFC 5903's shared secret from both sides")
    func ecdh() throws {
        let fromInitiator = try Self.initiator().sharedSecret(with: ECPublicKey(x963: Self.responderPoint))
        let fromResponder = try Self.responder().sharedSecret(with: ECPublicKey(x963: Self.initiatorPoint))
        #expect(fromInitiator.copyBytes() == Self.sharedX)
        #expect(fromResponder.copyBytes() == Self.sharedX)
        #expect(fromInitiator.isInSecureMemory)
    }

    @Test("a private key whose scalar does not give its point, and points off the curve, are refused")
    func inconsistentKeys() throws {
        #expect(throws: CryptoError.invalidKey) {
            try ECPrivateKey(x963: SecretBytes(copying: Self.initiatorPoint + Self.responderScalar))
        }
        var offCurve = Self.responderPoint
        offCurve[40] ^= 1
        #expect(throws: CryptoError.invalidPublicKey) { try ECPublicKey(x963: offCurve) }
        #expect(throws: CryptoError.invalidPublicKey) { try ECPublicKey(x963: Array(Self.responderPoint.dropLast())) }
        // (0, y) is on P-256; writing its X as the field prime p names the same point and must be refused.
        let y = "66485C780E2F83D72433BD5D84A06BB6541C2AF31DAE871728BF856A174F93F4"
        _ = try ECPublicKey(x963: Self.hex("04" + String(repeating: "00", count: 32) + y))
        #expect(throws: CryptoError.invalidPublicKey) {
            try ECPublicKey(x963: Self.hex("04FFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF" + y))
        }
    }

    @Test("private-key S-expressions built here, and generated key pairs, live in secure memory")
    func secureExpressions() throws {
        var builder = SExpressionBuilder()
        builder.open("private-key")
        builder.open("ecc")
        builder.pair("curve", "NIST P-256")
        builder.secretNumber("d", try SecretBytes(copying: Self.initiatorScalar))
        builder.close()
        builder.close()
        #expect(try builder.build().isInSecureMemory)
        #expect(try builder.sexp().isInSecureMemory)
        var specification = SExpressionBuilder()
        specification.open("genkey")
        specification.open("ecc")
        specification.pair("curve", "NIST P-256")
        specification.close()
        specification.close()
        #expect(try PublicKeyCall.generate(specification.sexp()).isInSecureMemory)
    }

    @Test("X9.63 KDF matches NIST CAVS SHA-256 vectors, without and with SharedInfo")
    func x963() throws {
        let first = try X963KDF.derive(SecretBytes(copying: Self.hex("96c05619d56c328ab95fe84b18264b08725b85e33fd34f08")),
                                       sharedInfo: [], length: 16, digest: .sha256)
        #expect(first.copyBytes() == Self.hex("443024c3dae66b95e6f5670601558f71"))
        let second = try X963KDF.derive(
            SecretBytes(copying: Self.hex("22518b10e70f2a3f243810ae3254139efbee04aa57c7af7d")),
            sharedInfo: Self.hex("75eef81aa3041e33b80971203d2c0c52"), length: 128, digest: .sha256)
        #expect(second.copyBytes() == Self.hex(
            "c498af77161cc59f2962b9a713e2b215152d139766ce34a776df11866a69bf2e52a13d9c7c6fc878c50c5ea0bc7b00e0"
            + "da2447cfd874f6cf92f30d0097111485500c90c3af8b487872d04685d14c8d1dc8d7fa08beb0ce0ababc11f0bd4962"
            + "69142d43525a78e5bc79a17f59676a5706dc54d54d4d1f0bd7e386128ec26afc21"))
    }

    // Expected outputs written by python3-cryptography following Apple's published ECIES construction, with the
    // RFC 5903 initiator as ephemeral key and the responder as recipient.
    static let eciesZeroIV = hex(
        "04dad0b65394221cf9b051e1feca5787d098dfe637fc90b9ef945d0c37725811805271a0461cdb8252d61f1c456fa3e59ab1f45b33"
        + "accf5f58389e0577b8990bb3a270dd86dd330952c9f0e8cc9197c7aaf67a4d3325fa4cc4a9b43d70")
    static let eciesVariableIV = hex(
        "04dad0b65394221cf9b051e1feca5787d098dfe637fc90b9ef945d0c37725811805271a0461cdb8252d61f1c456fa3e59ab1f45b33"
        + "accf5f58389e0577b8990bb3e311f3e21bdd98e087349f1dace100d64f3d5ec6c4cc9707a7345195")

    @Test("Apple's ECIES with a fixed ephemeral key gives the known bytes, and opens them", arguments: [false, true])
    func eciesKnownAnswer(variableIV: Bool) throws {
        let plaintext = try SecretBytes(copying: Array("Coffer ECIES".utf8))
        let expected = variableIV ? Self.eciesVariableIV : Self.eciesZeroIV
        let sealed = try AppleECIES.seal(plaintext, to: ECPublicKey(x963: Self.responderPoint),
                                         ephemeral: Self.initiator(), kdf: .sha256, variableIV: variableIV)
        #expect(sealed == expected)
        let opened = try AppleECIES.open(expected, with: Self.responder(), kdf: .sha256, variableIV: variableIV)
        #expect(opened.copyBytes() == Array("Coffer ECIES".utf8))
        #expect(throws: CryptoError.authenticationFailed) {
            try AppleECIES.open(expected, with: Self.responder(), kdf: .sha256, variableIV: !variableIV)
        }
    }

    @Test("ECDSA signs and verifies on every curve with every digest", arguments: EllipticCurve.allCases)
    func ecdsa(curve: EllipticCurve) throws {
        let key = try ECPrivateKey.generate(curve: curve)
        #expect(key.publicKey.x963.count == 1 + 2 * curve.coordinateByteCount)
        let again = try ECPrivateKey(x963: key.x963Representation())
        #expect(again.publicKey == key.publicKey)
        for digest in DigestAlgorithm.allCases {
            let hash = try digest.digest(Array("message".utf8))
            let signature = try key.sign(digest: hash, algorithm: digest)
            #expect(signature.first == 0x30)
            #expect(key.publicKey.verify(signature: signature, digest: hash, algorithm: digest))
            var wrong = hash
            wrong[0] ^= 1
            #expect(!key.publicKey.verify(signature: signature, digest: wrong, algorithm: digest))
            #expect(!key.publicKey.verify(signature: Array(signature.dropLast()), digest: hash, algorithm: digest))
        }
    }

    /// A 1024-bit RSA private key made by OpenSSL (PKCS#1; its prime1 is the larger prime, the order libgcrypt
    /// does not use internally).
    static let openSSLKey = [UInt8](Data(base64Encoded: """
        MIICXgIBAAKBgQDksB7RtheH5cspKMhIXjhmJULdSCbuAlL9UYgdu2hSCIBDgu1U92+5bWN2DyO946dsujFdJJE0EFTnuy4ouI4FLO5h1LQd\
        NbhO+JWzdJLzwTaWg8EnOIxuuoOowIiuoRtqbSsgn2pr8csY8RNntn+PxUnv45QiFA3gyQOw20Gp3QIDAQABAoGBAJHRKxWVAhQJFi28b1iV\
        m2imQahPJWOF39zea+hpYu9LtF1X0nTnATo+4biZlrSxwEO3xVoawutrrnfEBn64jvTQ0JxpHYAyRrEHpfEuQVAVXb/DRfIqqkoJ6HsN3J6S\
        /sjyM/elotayyL+WkK+J3ZeSxhevn2PrUqpbM4biqA+RAkEA//N2ypP81GiOnmbmia27t1riV7pmr2k0p1p2D71hue2Zm1uIiX44VTq4bb5F\
        1EvNGcWJP6RlLFX9HdrjFrWyuwJBAOS7UjGKsGt2mHHDOFH4nLx2GcMQAYryulS4TJonYtyPZL+AFvX6Vrd/epDO9OCggNLizWC51Jvo3SOQ\
        THGByEcCQQCSdkEdvv1IluQ1pHB7jF0EmQ84YEPuUGd+9HbmntpTSLFDg2doNkAKFWX/9oeC6jVdb/oP3wS+EB6dfOnBzwuNAkEAsnI10LLL\
        qjsu+Wn9cW4NEbbtqFG/cmCl39yc3pMlvL8eMYzD3Ql+R9BrlbfwMaLmfiA1bGXuKeiFRe6YxOEklwJAfZoI+SKT19ai8QdgCA0/mbkkn72o\
        vxvCfL+Q+S0L0bceMK0J4pKh1vKBgAXcRe0nN8PNC6zmTl3DeNVivozNOg==
        """)!)

    @Test("an OpenSSL PKCS#1 key reads, signs, decrypts and writes back byte for byte")
    func openSSLKey() throws {
        let key = try RSAPrivateKey(pkcs1: SecretBytes(copying: Self.openSSLKey))
        #expect(try key.pkcs1().copyBytes() == Self.openSSLKey)
        let hash = try DigestAlgorithm.sha384.digest(Array("message".utf8))
        let signature = try key.sign(digest: hash, algorithm: .sha384, padding: .pss)
        #expect(key.publicKey.verify(signature: signature, digest: hash, algorithm: .sha384, padding: .pss))
        let sealed = try key.publicKey.encrypt(SecretBytes(copying: [9, 8, 7]), padding: .oaep(.sha384))
        #expect(try key.decrypt(sealed, padding: .oaep(.sha384)).copyBytes() == [9, 8, 7])
        // OAEP with SHA-512 needs 130 bytes of padding: more than a 1024-bit block holds.
        #expect(throws: CryptoError.invalidParameter) {
            try key.publicKey.encrypt(SecretBytes(copying: [9]), padding: .oaep(.sha512))
        }
        var truncated = Self.openSSLKey
        truncated.removeLast()
        #expect(throws: CryptoError.invalidKey) { try RSAPrivateKey(pkcs1: SecretBytes(copying: truncated)) }
        // The same key with two bits of prime1 changed (its length kept): the primes no longer give n.
        let der = try key.pkcs1().copyBytes()
        let ranges = try der.withUnsafeBytes { try DERIntegers.ranges(in: $0) }
        var wrongPrime = der
        wrongPrime[ranges[4].upperBound - 1] ^= 0x06
        #expect(throws: CryptoError.invalidKey) { try RSAPrivateKey(pkcs1: SecretBytes(copying: wrongPrime)) }
    }

    @Test("RSA keys: PKCS#1 round trip, signatures in both paddings, both encryptions")
    func rsa() throws {
        let key = try RSAPrivateKey.generate(bits: 1024)
        #expect(key.publicKey.sizeInBits == 1024)
        let der = try key.pkcs1()
        #expect(der.isInSecureMemory)
        let again = try RSAPrivateKey(pkcs1: der)
        #expect(try again.pkcs1().constantTimeEquals(der))
        let hash = try DigestAlgorithm.sha256.digest(Array("message".utf8))
        for padding in [RSASignaturePadding.pkcs1v15, .pss] {
            let signature = try again.sign(digest: hash, algorithm: .sha256, padding: padding)
            #expect(signature.count == 128)
            #expect(key.publicKey.verify(signature: signature, digest: hash, algorithm: .sha256, padding: padding))
            #expect(!key.publicKey.verify(signature: signature, digest: hash, algorithm: .sha256,
                                          padding: padding == .pss ? .pkcs1v15 : .pss))
        }
        for padding in [RSAEncryptionPadding.pkcs1, .oaep(.sha1), .oaep(.sha256)] {
            let sealed = try key.publicKey.encrypt(SecretBytes(copying: [0, 1, 2, 3]), padding: padding)
            #expect(try key.decrypt(sealed, padding: padding).copyBytes() == [0, 1, 2, 3])
        }
        #expect(throws: CryptoError.self) {
            try key.publicKey.encrypt(SecretBytes(count: 100), padding: .oaep(.sha256))
        }
        #expect(throws: CryptoError.self) { try RSAPrivateKey.generate(bits: 512) }
    }
}

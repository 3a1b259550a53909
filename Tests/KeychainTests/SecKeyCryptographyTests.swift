// SPDX-License-Identifier: Apache-2.0
// SecKey cryptography through Apple's functions, checked against python3-cryptography in both directions.

import Foundation
import Security
import Testing

@Suite("SecKey cryptography")
struct SecKeyCryptographyTests {
    static let message = Data("challenge from the server".utf8)
    static let hashes: [(name: String, ecdsaMessage: SecKeyAlgorithm, ecdsaDigest: SecKeyAlgorithm,
                         pkcs1: SecKeyAlgorithm, pss: SecKeyAlgorithm, oaep: SecKeyAlgorithm)] = [
        ("sha1", .ecdsaSignatureMessageX962SHA1, .ecdsaSignatureDigestX962SHA1, .rsaSignatureMessagePKCS1v15SHA1,
         .rsaSignatureMessagePSSSHA1, .rsaEncryptionOAEPSHA1),
        ("sha224", .ecdsaSignatureMessageX962SHA224, .ecdsaSignatureDigestX962SHA224,
         .rsaSignatureMessagePKCS1v15SHA224, .rsaSignatureMessagePSSSHA224, .rsaEncryptionOAEPSHA224),
        ("sha256", .ecdsaSignatureMessageX962SHA256, .ecdsaSignatureDigestX962SHA256,
         .rsaSignatureMessagePKCS1v15SHA256, .rsaSignatureMessagePSSSHA256, .rsaEncryptionOAEPSHA256),
        ("sha384", .ecdsaSignatureMessageX962SHA384, .ecdsaSignatureDigestX962SHA384,
         .rsaSignatureMessagePKCS1v15SHA384, .rsaSignatureMessagePSSSHA384, .rsaEncryptionOAEPSHA384),
        ("sha512", .ecdsaSignatureMessageX962SHA512, .ecdsaSignatureDigestX962SHA512,
         .rsaSignatureMessagePKCS1v15SHA512, .rsaSignatureMessagePSSSHA512, .rsaEncryptionOAEPSHA512),
    ]

    static func generate(_ type: CFString, bits: Int) throws -> SecKey {
        var error: Unmanaged<CFError>?
        let key = SecKeyCreateRandomKey([kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: bits]
                                        as CFDictionary, &error)
        return try #require(key, "\(String(describing: error?.takeRetainedValue()))")
    }

    static func external(_ key: SecKey) throws -> Data {
        try #require(SecKeyCopyExternalRepresentation(key, nil)) as Data
    }

    static func status(_ error: Unmanaged<CFError>?) -> (String, Int)? {
        guard let error = error?.takeRetainedValue() else { return nil }
        return (error.domain, error.code)
    }

    static func type(_ name: String) -> CFString {
        name == "RSA" ? kSecAttrKeyTypeRSA : kSecAttrKeyTypeECSECPrimeRandom
    }

    @Test("generated keys round-trip through Apple's external representations", arguments: [
        ("EC", 256, 65), ("EC", 384, 97), ("EC", 521, 133), ("RSA", 1024, 0), ("RSA", 2048, 0),
    ])
    func roundTrip(typeName: String, bits: Int, publicLength: Int) throws {
        let type = Self.type(typeName)
        let key = try Self.generate(type, bits: bits)
        let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
        #expect(attributes[kSecAttrKeySizeInBits as String] as? Int == bits)
        let data = try Self.external(key)
        let again = try #require(SecKeyCreateWithData(data as CFData, [
            kSecAttrKeyType as String: type, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
        ] as CFDictionary, nil))
        #expect(again == key)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        let publicData = try Self.external(publicKey)
        if publicLength > 0 {
            #expect(publicData.count == publicLength && publicData.first == 0x04)
            #expect(data.count == publicLength + (bits + 7) / 8 && data.prefix(publicLength) == publicData)
        } else {
            #expect(SecKeyGetBlockSize(key) == bits / 8)
        }
    }

    @Test("a private key whose scalar belongs to another key's point is refused with errSecParam")
    func mismatchedPrivateKey() throws {
        let one = try Self.external(Self.generate(kSecAttrKeyTypeECSECPrimeRandom, bits: 256))
        let other = try Self.external(Self.generate(kSecAttrKeyTypeECSECPrimeRandom, bits: 256))
        var error: Unmanaged<CFError>?
        let mixed = one.prefix(65) + other.suffix(32)
        #expect(SecKeyCreateWithData(mixed as CFData, [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
        ] as CFDictionary, &error) == nil)
        #expect(Self.status(error)! == (NSOSStatusErrorDomain, Int(errSecParam)))
    }

    @Test("unsupported sizes and types are errSecParam in NSOSStatusErrorDomain",
          arguments: [("RSA", 512), ("RSA", 8192), ("RSA", 2047), ("EC", 224), ("DSA", 1024)])
    func refusedSizes(typeName: String, bits: Int) {
        let type: Any = typeName == "DSA" ? "17" : Self.type(typeName)
        var error: Unmanaged<CFError>?
        #expect(SecKeyCreateRandomKey([kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: bits]
                                      as CFDictionary, &error) == nil)
        #expect(Self.status(error)! == (NSOSStatusErrorDomain, Int(errSecParam)))
    }

    @Test("ECDSA signatures (message and digest) verify in python and here; tampering fails", arguments: [256, 384, 521])
    func ecdsa(bits: Int) throws {
        let key = try Self.generate(kSecAttrKeyTypeECSECPrimeRandom, bits: bits)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        for hash in Self.hashes {
            let signature = try #require(SecKeyCreateSignature(key, hash.ecdsaMessage, Self.message as CFData, nil))
            let answer = try PythonCryptography.run("ec-verify", ["key": Self.external(publicKey),
                                                                  "sig": signature as Data, "msg": Self.message],
                                                    text: ["hash": hash.name])
            #expect(answer["ok"] == Data([1]), "\(hash.name)")
            #expect(SecKeyVerifySignature(publicKey, hash.ecdsaMessage, Self.message as CFData, signature, nil))
            var error: Unmanaged<CFError>?
            #expect(!SecKeyVerifySignature(publicKey, hash.ecdsaMessage, Data("other".utf8) as CFData, signature,
                                           &error))
            #expect(Self.status(error)! == (NSOSStatusErrorDomain, Int(errSecVerifyFailed)))
            // Signing the message's digest with the digest algorithm is signing the message.
            let digest = try #require(PythonCryptography.run("digest", ["msg": Self.message],
                                                             text: ["hash": hash.name])["digest"])
            let overDigest = try #require(SecKeyCreateSignature(key, hash.ecdsaDigest, digest as CFData, nil))
            #expect(SecKeyVerifySignature(publicKey, hash.ecdsaMessage, Self.message as CFData, overDigest, nil))
            #expect(SecKeyVerifySignature(publicKey, hash.ecdsaDigest, digest as CFData, signature, nil))
        }
        let python = try PythonCryptography.run("ec-sign", ["msg": Self.message], text: ["size": "\((bits + 7) / 8)",
                                                                                         "hash": "sha384"])
        let theirs = try #require(SecKeyCreateWithData(python["key"]! as CFData, [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
        ] as CFDictionary, nil))
        #expect(SecKeyVerifySignature(theirs, .ecdsaSignatureMessageX962SHA384, Self.message as CFData,
                                      python["sig"]! as CFData, nil))
    }

    @Test("RSA PKCS#1 v1.5 and PSS signatures verify in python and python's verify here")
    func rsaSignatures() throws {
        let key = try Self.generate(kSecAttrKeyTypeRSA, bits: 2048)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        for hash in Self.hashes {
            for (algorithm, padding) in [(hash.pkcs1, "pkcs1"), (hash.pss, "pss")] {
                let signature = try #require(SecKeyCreateSignature(key, algorithm, Self.message as CFData, nil))
                #expect(signature.length == 256)
                let answer = try PythonCryptography.run("rsa-verify", [
                    "key": Self.external(publicKey), "sig": signature as Data, "msg": Self.message,
                ], text: ["hash": hash.name, "padding": padding])
                #expect(answer["ok"] == Data([1]), "\(hash.name) \(padding)")
                #expect(SecKeyVerifySignature(publicKey, algorithm, Self.message as CFData, signature, nil))
            }
        }
        for padding in ["pkcs1", "pss"] {
            let python = try PythonCryptography.run("rsa-sign", ["msg": Self.message],
                                                    text: ["bits": "2048", "hash": "sha256", "padding": padding])
            let theirs = try #require(SecKeyCreateWithData(python["key"]! as CFData, [
                kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
            ] as CFDictionary, nil))
            let algorithm: SecKeyAlgorithm = padding == "pss" ? .rsaSignatureMessagePSSSHA256
                : .rsaSignatureMessagePKCS1v15SHA256
            #expect(SecKeyVerifySignature(theirs, algorithm, Self.message as CFData, python["sig"]! as CFData, nil))
            // The digest algorithms verify the same signature given the message's SHA-256.
            let digest = try #require(PythonCryptography.run("digest", ["msg": Self.message])["digest"])
            let digestAlgorithm: SecKeyAlgorithm = padding == "pss" ? .rsaSignatureDigestPSSSHA256
                : .rsaSignatureDigestPKCS1v15SHA256
            #expect(SecKeyVerifySignature(theirs, digestAlgorithm, digest as CFData, python["sig"]! as CFData, nil))
            let overDigest = try #require(SecKeyCreateSignature(key, digestAlgorithm, digest as CFData, nil))
            #expect(SecKeyVerifySignature(publicKey, algorithm, Self.message as CFData, overDigest, nil))
        }
    }

    @Test("RSA OAEP and PKCS#1 ciphertexts decrypt across python and Coffer")
    func rsaEncryption() throws {
        let key = try Self.generate(kSecAttrKeyTypeRSA, bits: 2048)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        let paddings = Self.hashes.map { ($0.oaep, $0.name) } + [(SecKeyAlgorithm.rsaEncryptionPKCS1, "pkcs1")]
        for (algorithm, padding) in paddings {
            let fromPython = try PythonCryptography.run("rsa-encrypt", ["key": Self.external(publicKey),
                                                                        "msg": Self.message], text: ["padding": padding])
            let opened = SecKeyCreateDecryptedData(key, algorithm, fromPython["ct"]! as CFData, nil)
            #expect(opened.map { $0 as Data } == Self.message, "\(padding)")
            let sealed = try #require(SecKeyCreateEncryptedData(publicKey, algorithm, Self.message as CFData, nil))
            let answer = try PythonCryptography.run("rsa-decrypt", ["key": Self.external(key), "ct": sealed as Data],
                                                    text: ["padding": padding])
            #expect(answer["msg"] == Self.message, "\(padding)")
        }
        var error: Unmanaged<CFError>?
        #expect(SecKeyCreateDecryptedData(key, .rsaEncryptionOAEPSHA256, Data(repeating: 1, count: 256) as CFData,
                                          &error) == nil)
        #expect(Self.status(error)! == (NSOSStatusErrorDomain, Int(errSecParam)))
    }

    static let ecies: [(SecKeyAlgorithm, String, Bool)] = [
        (.eciesEncryptionStandardX963SHA1AESGCM, "sha1", false), (.eciesEncryptionStandardX963SHA224AESGCM, "sha224", false),
        (.eciesEncryptionStandardX963SHA256AESGCM, "sha256", false), (.eciesEncryptionStandardX963SHA384AESGCM, "sha384", false),
        (.eciesEncryptionStandardX963SHA512AESGCM, "sha512", false), (.eciesEncryptionCofactorX963SHA256AESGCM, "sha256", false),
        (.eciesEncryptionStandardVariableIVX963SHA224AESGCM, "sha224", true),
        (.eciesEncryptionStandardVariableIVX963SHA256AESGCM, "sha256", true),
        (.eciesEncryptionCofactorVariableIVX963SHA256AESGCM, "sha256", true),
        (.eciesEncryptionCofactorVariableIVX963SHA384AESGCM, "sha384", true),
        (.eciesEncryptionCofactorVariableIVX963SHA512AESGCM, "sha512", true),
    ]

    @Test("ECIES ciphertexts in Apple's format decrypt across python and Coffer", arguments: [256, 384, 521])
    func ecies(bits: Int) throws {
        let key = try Self.generate(kSecAttrKeyTypeECSECPrimeRandom, bits: bits)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        for (algorithm, hash, variable) in Self.ecies {
            let flag = variable ? "1" : "0"
            let fromPython = try PythonCryptography.run("ecies-encrypt", ["key": Self.external(publicKey),
                                                                          "msg": Self.message],
                                                        text: ["hash": hash, "variable": flag])
            let opened = SecKeyCreateDecryptedData(key, algorithm, fromPython["ct"]! as CFData, nil)
            #expect(opened.map { $0 as Data } == Self.message, "\(algorithm.rawValue)")
            let sealed = try #require(SecKeyCreateEncryptedData(publicKey, algorithm, Self.message as CFData, nil))
            #expect(sealed.length == 1 + 2 * ((bits + 7) / 8) + Self.message.count + 16)
            let answer = try PythonCryptography.run("ecies-decrypt", ["key": Self.external(key), "ct": sealed as Data],
                                                    text: ["hash": hash, "variable": flag])
            #expect(answer["msg"] == Self.message, "\(algorithm.rawValue)")
            var tampered = sealed as Data
            tampered[tampered.count - 1] ^= 1
            var error: Unmanaged<CFError>?
            #expect(SecKeyCreateDecryptedData(key, algorithm, tampered as CFData, &error) == nil)
            #expect(Self.status(error)! == (NSOSStatusErrorDomain, Int(errSecParam)))
        }
    }

    @Test("ECDH results match python's, raw and through the X9.63 KDF with SharedInfo")
    func keyExchange() throws {
        let mine = try Self.generate(kSecAttrKeyTypeECSECPrimeRandom, bits: 384)
        let peer = try Self.generate(kSecAttrKeyTypeECSECPrimeRandom, bits: 384)
        let peerPublic = try #require(SecKeyCopyPublicKey(peer))
        let info = Data("context".utf8)
        let python = try PythonCryptography.run("ecdh", ["key": Self.external(mine), "peer": Self.external(peerPublic),
                                                         "info": info], text: ["hash": "sha256", "size": "42"])
        for algorithm in [SecKeyAlgorithm.ecdhKeyExchangeStandard, .ecdhKeyExchangeCofactor] {
            let raw = SecKeyCopyKeyExchangeResult(mine, algorithm, peerPublic, [:] as CFDictionary, nil)
            #expect(raw.map { $0 as Data } == python["raw"])
        }
        let derived = SecKeyCopyKeyExchangeResult(mine, .ecdhKeyExchangeStandardX963SHA256, peerPublic, [
            kSecKeyKeyExchangeParameterRequestedSize as String: 42, kSecKeyKeyExchangeParameterSharedInfo as String: info,
        ] as CFDictionary, nil)
        #expect(derived.map { $0 as Data } == python["kdf"])
        var error: Unmanaged<CFError>?
        #expect(SecKeyCopyKeyExchangeResult(mine, .ecdhKeyExchangeCofactorX963SHA256, peerPublic, [:] as CFDictionary,
                                            &error) == nil)
        #expect(Self.status(error)! == (NSOSStatusErrorDomain, Int(errSecParam)))
    }

    @Test("support follows key type and class; unsupported pairs are errSecUnimplemented")
    func support() throws {
        let ec = try Self.generate(kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let ecPublic = try #require(SecKeyCopyPublicKey(ec))
        #expect(SecKeyIsAlgorithmSupported(ec, .sign, .ecdsaSignatureMessageX962SHA256))
        #expect(SecKeyIsAlgorithmSupported(ecPublic, .verify, .ecdsaSignatureMessageX962SHA256))
        #expect(!SecKeyIsAlgorithmSupported(ecPublic, .sign, .ecdsaSignatureMessageX962SHA256))
        #expect(!SecKeyIsAlgorithmSupported(ec, .sign, .rsaSignatureMessagePSSSHA256))
        #expect(SecKeyIsAlgorithmSupported(ecPublic, .encrypt, .eciesEncryptionCofactorVariableIVX963SHA256AESGCM))
        #expect(SecKeyIsAlgorithmSupported(ec, .keyExchange, .ecdhKeyExchangeStandardX963SHA256))
        #expect(!SecKeyIsAlgorithmSupported(ec, .sign, SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:RFC4754")))
        #expect(SecKeyGetBlockSize(ec) == 32)
        var error: Unmanaged<CFError>?
        #expect(SecKeyCreateSignature(ecPublic, .ecdsaSignatureMessageX962SHA256, Self.message as CFData, &error) == nil)
        #expect(Self.status(error)! == (NSOSStatusErrorDomain, Int(errSecUnimplemented)))
        #expect(SecKeyCreateSignature(ec, .ecdsaSignatureDigestX962SHA256, Data(count: 5) as CFData, &error) == nil)
        #expect(Self.status(error)! == (NSOSStatusErrorDomain, Int(errSecParam)))
    }
}

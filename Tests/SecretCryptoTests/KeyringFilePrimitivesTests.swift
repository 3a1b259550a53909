// SPDX-License-Identifier: Apache-2.0
// Known answers for the primitives that read other programs' keyring files: SHA-256, MD5, iterated SHA-256,
// PBKDF2-HMAC-SHA256 and unpadded AES-128-CBC.

import SecretCrypto
import Testing

private func bytes(_ hex: String) -> [UInt8] {
    var result: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        result.append(UInt8(hex[index..<next], radix: 16)!)
        index = next
    }
    return result
}

@Suite("keyring-file primitives")
struct KeyringFilePrimitivesTests {
    @Test("SHA-256 and MD5 known answers (FIPS 180-4, RFC 1321)")
    func digests() throws {
        #expect(try MessageDigest.sha256(Array("abc".utf8))
                == bytes("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
        #expect(try MessageDigest.md5(of: try SecretBytes(copying: Array("xabc".utf8)), range: 1..<4)
                == bytes("900150983cd24fb0d6963f7d28e17f72"))
        #expect(try MessageDigest.md5(of: try SecretBytes(count: 0), range: 0..<0) == bytes("d41d8cd98f00b204e9800998ecf8427e"))
    }

    @Test("iterated SHA-256 is SHA-256(password ‖ salt) re-hashed iterations - 1 times")
    func iterated() throws {
        let password = try SecretBytes(copying: Array("pass".utf8))
        let salt: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        let once = try MessageDigest.sha256(Array("pass".utf8) + salt)
        #expect(try IteratedSHA256.derive(password: password, salt: salt, iterations: 1).copyBytes() == once)
        #expect(try IteratedSHA256.derive(password: password, salt: salt, iterations: 3).copyBytes()
                == (try MessageDigest.sha256(try MessageDigest.sha256(once))))
        #expect(throws: CryptoError.invalidParameter) {
            try IteratedSHA256.derive(password: password, salt: salt, iterations: 0)
        }
        #expect(throws: CryptoError.invalidParameter) {
            try IteratedSHA256.derive(password: password, salt: salt, iterations: IteratedSHA256.maximumIterations + 1)
        }
    }

    @Test("PBKDF2-HMAC-SHA256 known answers (RFC 7914 section 11)")
    func pbkdf2() throws {
        let key = try PBKDF2SHA256.deriveKey(password: try SecretBytes(copying: Array("passwd".utf8)),
                                             salt: Array("salt".utf8), iterations: 1, outputByteCount: 64)
        #expect(key.copyBytes() == bytes(
            "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
                + "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"))
        #expect(throws: CryptoError.invalidParameter) {
            try PBKDF2SHA256.deriveKey(password: try SecretBytes(count: 0), salt: [1], iterations: 1, outputByteCount: 16)
        }
    }

    @Test("unpadded AES-128-CBC: FIPS-197 / SP 800-38A F.2.1 vector, round trip, ragged input refused")
    func unpaddedCBC() throws {
        let key = try SecretBytes(copying: bytes("2b7e151628aed2a6abf7158809cf4f3c"))
        let iv = try SecretBytes(copying: bytes("000102030405060708090a0b0c0d0e0f"))
        let plaintext = try SecretBytes(copying: bytes("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"))
        let ciphertext = try AES128CBC.encryptBlocks(plaintext, key: key, iv: iv)
        #expect(ciphertext == bytes("7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"))
        #expect(try ciphertext.withUnsafeBytes { try AES128CBC.decryptBlocks($0, key: key, iv: iv) }.copyBytes()
                == plaintext.copyBytes())
        #expect(throws: CryptoError.invalidCiphertext) {
            try [UInt8](repeating: 0, count: 15).withUnsafeBytes { try AES128CBC.decryptBlocks($0, key: key, iv: iv) }
        }
    }
}

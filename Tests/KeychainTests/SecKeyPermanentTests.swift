// SPDX-License-Identifier: Apache-2.0
// SecKeyCreateRandomKey with kSecAttrIsPermanent: the private key lands in the keychain under its tag.

import Foundation
import Security
import SecretServiceTestSupport
import Testing

extension KeychainSuites {
    @Suite("Generated keys in the keychain")
    struct SecKeyPermanentTests {
        static let tag = Data("com.example.device-key".utf8)

        private func find(_ tag: Data, keyClass: CFString) -> (OSStatus, SecKey?) {
            var item: CFTypeRef?
            let status = SecItemCopyMatching([
                kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag,
                kSecAttrKeyClass as String: keyClass, kSecReturnRef as String: true,
            ] as CFDictionary, &item)
            return (status, item as? SecKey)
        }

        @Test("a permanent EC key is stored with kSecPrivateKeyAttrs' tag, read back by reference, and signs")
        func permanentPrivateKey() async throws {
            try await withKeychain { _, _, _ in
                var error: Unmanaged<CFError>?
                let key = try #require(SecKeyCreateRandomKey([
                    kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                    kSecPrivateKeyAttrs as String: [
                        kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: Self.tag,
                    ],
                ] as CFDictionary, &error))
                let (status, stored) = find(Self.tag, keyClass: kSecAttrKeyClassPrivate)
                #expect(status == errSecSuccess)
                let found = try #require(stored)
                #expect(found == key)
                // Only the private key was asked to be permanent.
                #expect(find(Self.tag, keyClass: kSecAttrKeyClassPublic).0 == errSecItemNotFound)
                let message = Data("sign in".utf8) as CFData
                let signature = try #require(SecKeyCreateSignature(found, .ecdsaSignatureMessageX962SHA256, message, nil))
                let publicKey = try #require(SecKeyCopyPublicKey(key))
                #expect(SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, message, signature, nil))
            }
        }

        @Test("a top-level kSecAttrIsPermanent stores both halves; a transient key stores nothing")
        func permanentPair() async throws {
            try await withKeychain { _, _, _ in
                let transient = SecKeyCreateRandomKey([
                    kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 1024,
                    kSecPrivateKeyAttrs as String: [kSecAttrApplicationTag as String: Data("transient".utf8)],
                ] as CFDictionary, nil)
                #expect(transient != nil)
                #expect(find(Data("transient".utf8), keyClass: kSecAttrKeyClassPrivate).0 == errSecItemNotFound)
                let pair = SecKeyCreateRandomKey([
                    kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 1024,
                    kSecAttrIsPermanent as String: true,
                    kSecPrivateKeyAttrs as String: [kSecAttrApplicationTag as String: Data("both".utf8)],
                    kSecPublicKeyAttrs as String: [kSecAttrApplicationTag as String: Data("both".utf8)],
                ] as CFDictionary, nil)
                #expect(pair != nil)
                #expect(find(Data("both".utf8), keyClass: kSecAttrKeyClassPrivate).1 == pair)
                #expect(find(Data("both".utf8), keyClass: kSecAttrKeyClassPublic).1 == pair.flatMap(SecKeyCopyPublicKey))
            }
        }
    }
}

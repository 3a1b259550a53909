// SPDX-License-Identifier: Apache-2.0
// Keys: stored as Apple's external representation with size and application label derived from it.

import Foundation
import CofferKeychain
import SecretServiceClient
import SecretServiceTestSupport
import Testing

extension KeychainSuites {
    @Suite("Keys on every provider")
    struct KeyTests {
        /// The P-256 key of ``CertificateTests/der``: X9.63 public point, and point followed by the scalar.
        static let ecPublic = Data(base64Encoded: """
            BB/2tBC/dG3lRx2fvbqTJ/c2YpA1zaxzTL6IosrC5GV3VZJkN9l/HG8jRIr9CwsPFrLZCsRoL2CtttWYkBpBqlg=
            """)!
        static let ecPrivate = Data(base64Encoded: """
            BB/2tBC/dG3lRx2fvbqTJ/c2YpA1zaxzTL6IosrC5GV3VZJkN9l/HG8jRIr9CwsPFrLZCsRoL2CtttWYkBpBqli0NXEffMQOvt1yOTYxfS+6\
            SXSv9gLLyH08kkL5y94n2w==
            """)!
        /// A 1024-bit RSA private key (PKCS#1), made for this test; its public key's SHA-1 is ``rsaLabel``.
        static let rsaPrivate = Data(base64Encoded: """
            MIICXgIBAAKBgQDksB7RtheH5cspKMhIXjhmJULdSCbuAlL9UYgdu2hSCIBDgu1U92+5bWN2DyO946dsujFdJJE0EFTnuy4ouI4FLO5h1LQd\
            NbhO+JWzdJLzwTaWg8EnOIxuuoOowIiuoRtqbSsgn2pr8csY8RNntn+PxUnv45QiFA3gyQOw20Gp3QIDAQABAoGBAJHRKxWVAhQJFi28b1iV\
            m2imQahPJWOF39zea+hpYu9LtF1X0nTnATo+4biZlrSxwEO3xVoawutrrnfEBn64jvTQ0JxpHYAyRrEHpfEuQVAVXb/DRfIqqkoJ6HsN3J6S\
            /sjyM/elotayyL+WkK+J3ZeSxhevn2PrUqpbM4biqA+RAkEA//N2ypP81GiOnmbmia27t1riV7pmr2k0p1p2D71hue2Zm1uIiX44VTq4bb5F\
            1EvNGcWJP6RlLFX9HdrjFrWyuwJBAOS7UjGKsGt2mHHDOFH4nLx2GcMQAYryulS4TJonYtyPZL+AFvX6Vrd/epDO9OCggNLizWC51Jvo3SOQ\
            THGByEcCQQCSdkEdvv1IluQ1pHB7jF0EmQ84YEPuUGd+9HbmntpTSLFDg2doNkAKFWX/9oeC6jVdb/oP3wS+EB6dfOnBzwuNAkEAsnI10LLL\
            qjsu+Wn9cW4NEbbtqFG/cmCl39yc3pMlvL8eMYzD3Ql+R9BrlbfwMaLmfiA1bGXuKeiFRe6YxOEklwJAfZoI+SKT19ai8QdgCA0/mbkkn72o\
            vxvCfL+Q+S0L0bceMK0J4pKh1vKBgAXcRe0nN8PNC6zmTl3DeNVivozNOg==
            """)!
        static let rsaLabel = CertificateTests.hex("ccfecc43fa949a5571fec16289a293833a79c84c")

        static let keys = kSecClassKey as String

        private func attributes(tag: String) -> [String: Any]? {
            var item: CFTypeRef?
            let query: [String: Any] = [kSecClass as String: Self.keys, kSecAttrApplicationTag as String: Data(tag.utf8),
                                        kSecReturnAttributes as String: true]
            guard SecItemCopyMatching(query as CFDictionary, &item) == errSecSuccess else { return nil }
            return item as? [String: Any]
        }

        private func add(_ data: Data, tag: String, keyClass: CFString, type: CFString) -> OSStatus {
            SecItemAdd([kSecClass as String: Self.keys, kSecAttrApplicationTag as String: Data(tag.utf8),
                        kSecAttrKeyClass as String: keyClass, kSecAttrKeyType as String: type,
                        kSecValueData as String: data] as CFDictionary, nil)
        }

        @Test("EC and RSA keys get Apple's size and application label; the EC label joins the certificate",
              arguments: Provider.allCases)
        func derivedAttributes(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                #expect(add(Self.ecPrivate, tag: "ec", keyClass: kSecAttrKeyClassPrivate,
                            type: kSecAttrKeyTypeECSECPrimeRandom) == errSecSuccess)
                let ec = try #require(attributes(tag: "ec"))
                #expect(ec[kSecAttrKeySizeInBits as String] as? Int == 256)
                #expect(ec[kSecAttrEffectiveKeySize as String] as? Int == 256)
                #expect(ec[kSecAttrKeyClass as String] as? Int == 1)
                #expect(ec[kSecAttrKeyType as String] as? Int == 73)
                // Apple's label for an asymmetric key is the public key's SHA-1: the certificate's pkhh.
                #expect(ec[kSecAttrApplicationLabel as String] as? Data == CertificateTests.publicKeyHash)

                #expect(add(Self.rsaPrivate, tag: "rsa", keyClass: kSecAttrKeyClassPrivate, type: kSecAttrKeyTypeRSA)
                        == errSecSuccess)
                let rsa = try #require(attributes(tag: "rsa"))
                #expect(rsa[kSecAttrKeySizeInBits as String] as? Int == 1024)
                #expect(rsa[kSecAttrApplicationLabel as String] as? Data == Self.rsaLabel)

                // Public and private halves differ in class, so both fit; the same key twice does not.
                #expect(add(Self.ecPublic, tag: "ec", keyClass: kSecAttrKeyClassPublic,
                            type: kSecAttrKeyTypeECSECPrimeRandom) == errSecSuccess)
                #expect(add(Self.ecPrivate, tag: "ec", keyClass: kSecAttrKeyClassPrivate,
                            type: kSecAttrKeyTypeECSECPrimeRandom) == errSecDuplicateItem)
                var data: CFTypeRef?
                let byLabel: [String: Any] = [kSecClass as String: Self.keys,
                                              kSecAttrApplicationLabel as String: Self.rsaLabel,
                                              kSecReturnData as String: true]
                #expect(SecItemCopyMatching(byLabel as CFDictionary, &data) == errSecSuccess)
                #expect(data as? Data == Self.rsaPrivate)

                let symmetric = Data(repeating: 7, count: 32)
                #expect(add(symmetric, tag: "aes", keyClass: kSecAttrKeyClassSymmetric, type: "2147483649" as CFString)
                        == errSecSuccess)
                #expect(attributes(tag: "aes")?[kSecAttrKeySizeInBits as String] as? Int == 256)
            }
        }

        @Test("bad key data is errSecParam, other asymmetric types errSecUnimplemented, key material read-only",
              arguments: Provider.allCases)
        func invalidKeys(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                #expect(add(Self.ecPublic.dropLast(), tag: "t", keyClass: kSecAttrKeyClassPublic,
                            type: kSecAttrKeyTypeECSECPrimeRandom) == errSecParam)
                #expect(add(Data("not a key".utf8), tag: "t", keyClass: kSecAttrKeyClassPrivate, type: kSecAttrKeyTypeRSA)
                        == errSecParam)
                #expect(add(Self.ecPublic, tag: "t", keyClass: kSecAttrKeyClassPublic, type: "43" as CFString)  // DSA
                        == errSecUnimplemented)
                #expect(SecItemAdd([kSecClass as String: Self.keys, kSecValueData as String: Self.ecPublic] as CFDictionary,
                                   nil) == errSecParam)

                #expect(add(Self.ecPublic, tag: "t", keyClass: kSecAttrKeyClassPublic,
                            type: kSecAttrKeyTypeECSECPrimeRandom) == errSecSuccess)
                let query: [String: Any] = [kSecClass as String: Self.keys, kSecAttrApplicationTag as String: Data("t".utf8)]
                #expect(SecItemUpdate(query as CFDictionary, [kSecAttrKeySizeInBits as String: 384] as CFDictionary)
                        == errSecReadOnlyAttr)
                #expect(SecItemUpdate(query as CFDictionary, [kSecValueData as String: Self.ecPublic] as CFDictionary)
                        == errSecUnimplemented)
                #expect(SecItemUpdate(query as CFDictionary, [kSecAttrLabel as String: "signing key"] as CFDictionary)
                        == errSecSuccess)
                #expect(SecItemDelete(query as CFDictionary) == errSecSuccess)
                #expect(SecItemCopyMatching(query as CFDictionary, nil) == errSecItemNotFound)
            }
        }
    }
}

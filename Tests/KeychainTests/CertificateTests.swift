// SPDX-License-Identifier: Apache-2.0
// Certificates: stored as DER with the attributes Apple derives from it, searched, updated and deleted.

import Foundation
import CofferKeychain
import SecretCrypto
import SecretServiceClient
import SecretServiceTestSupport
import Testing

extension KeychainSuites {
    @Suite("Certificates on every provider")
    struct CertificateTests {
        /// A self-signed P-256 certificate: subject and issuer `C=DE, O=Coffer Tests, CN=keychain.test`, serial
        /// 0x1f2e3d4c5b6a, subject key identifier 01…0a (deliberately not the key hash).
        static let der = Data(base64Encoded: """
            MIIBkzCCATqgAwIBAgIGHy49TFtqMAoGCCqGSM49BAMCMDwxCzAJBgNVBAYTAkRFMRUwEwYDVQQKDAxDb2ZmZXIgVGVzdHMxFjAUBgNVBAMM\
            DWtleWNoYWluLnRlc3QwHhcNMjYxMTIyMDg1MzIxWhcNMzYxMTE5MDg1MzIxWjA8MQswCQYDVQQGEwJERTEVMBMGA1UECgwMQ29mZmVyIFRl\
            c3RzMRYwFAYDVQQDDA1rZXljaGFpbi50ZXN0MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEH/a0EL90beVHHZ+9upMn9zZikDXNrHNMvoii\
            ysLkZXdVkmQ32X8cbyNEiv0LCw8WstkKxGgvYK221ZiQGkGqWKMoMCYwDwYDVR0TAQH/BAUwAwEB/zATBgNVHQ4EDAQKAQIDBAUGBwgJCjAK\
            BggqhkjOPQQDAgNHADBEAiBbW5szs8g1pesXEe1baQ6AtJQ/rVkhleoT4TghLPNuCgIgSFdIouT0kZ0jOUjhlzm4Axd9vyGFTx2HBvZx81l9\
            nCk=
            """)!
        static let name = hex("303c310b300906035504061302444531153013060355040a0c0c436f666665722054657374733116301406"
                              + "035504030c0d6b6579636861696e2e74657374")
        static let serial = hex("1f2e3d4c5b6a")
        static let subjectKeyID = hex("0102030405060708090a")
        /// SHA-1 of the uncompressed EC point, as computed by python-cryptography.
        static let publicKeyHash = hex("3c4d155fac6ad3b14971e826a987ca1421f2b409")

        static func hex(_ text: String) -> Data {
            Data(stride(from: 0, to: text.count, by: 2).map { offset in
                let start = text.index(text.startIndex, offsetBy: offset)
                return UInt8(text[start..<text.index(start, offsetBy: 2)], radix: 16)!
            })
        }

        static let cert = kSecClassCertificate as String

        @Test("a DER certificate is stored with its derived attributes and found by them", arguments: Provider.allCases)
        func storeAndFind(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, client in
                var added: CFTypeRef?
                let add: [String: Any] = [kSecClass as String: Self.cert, kSecValueData as String: Self.der,
                                          kSecReturnAttributes as String: true]
                #expect(SecItemAdd(add as CFDictionary, &added) == errSecSuccess)
                let attributes = try #require(added as? [String: Any])
                #expect(attributes[kSecAttrCertificateType as String] as? Int == 3)
                #expect(attributes[kSecAttrCertificateEncoding as String] as? Int == 3)
                #expect(attributes[kSecAttrSerialNumber as String] as? Data == Self.serial)
                #expect(attributes[kSecAttrIssuer as String] as? Data == Self.name)
                #expect(attributes[kSecAttrSubject as String] as? Data == Self.name)
                #expect(attributes[kSecAttrSubjectKeyID as String] as? Data == Self.subjectKeyID)
                #expect(attributes[kSecAttrPublicKeyHash as String] as? Data == Self.publicKeyHash)
                #expect(attributes[kSecAttrLabel as String] as? String == "keychain.test")
                #expect(attributes[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAlways as String)

                // Issuer and serial number are the primary key.
                #expect(SecItemAdd([kSecClass as String: Self.cert, kSecValueData as String: Self.der,
                                    kSecAttrLabel as String: "again"] as CFDictionary, nil) == errSecDuplicateItem)
                var found: CFTypeRef?
                let byIssuer: [String: Any] = [kSecClass as String: Self.cert, kSecAttrIssuer as String: Self.name,
                                               kSecAttrSerialNumber as String: Self.serial, kSecReturnData as String: true]
                #expect(SecItemCopyMatching(byIssuer as CFDictionary, &found) == errSecSuccess)
                #expect(found as? Data == Self.der)
                let byKey: [String: Any] = [kSecClass as String: Self.cert, kSecAttrPublicKeyHash as String: Self.publicKeyHash]
                #expect(SecItemCopyMatching(byKey as CFDictionary, nil) == errSecSuccess)
                let otherSerial: [String: Any] = [kSecClass as String: Self.cert, kSecAttrSerialNumber as String: Data([1])]
                #expect(SecItemCopyMatching(otherSerial as CFDictionary, nil) == errSecItemNotFound)

                let stored = try await client.searchItems(["xdg:schema": "io.coffer.Keychain.Certificate"])
                let path = try #require(stored.unlocked.first)
                let properties = try await client.itemProperties(path)
                #expect(properties.attributes["keychain:slnr"] == "1f2e3d4c5b6a")
                #expect(properties.attributes["keychain:class"] == "cert")
                let secret = try #require(try await client.secrets(of: [path])[path])
                #expect(Data(secret.value.copyBytes()) == Self.der)
                // cofferd keeps the content type it was given; gnome-keyring does not store one (it answers
                // text/plain), which is why the library never relies on it when reading.
                if provider == .cofferd { #expect(secret.contentType == "application/pkix-cert") }
            }
        }

        @Test("labels change; derived attributes and the DER cannot; delete removes; bad DER is errSecParam",
              arguments: Provider.allCases)
        func updateAndDelete(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                #expect(SecItemAdd([kSecClass as String: Self.cert, kSecValueData as String: Self.der] as CFDictionary, nil)
                        == errSecSuccess)
                let query: [String: Any] = [kSecClass as String: Self.cert, kSecAttrSerialNumber as String: Self.serial]
                #expect(SecItemUpdate(query as CFDictionary, [kSecAttrLabel as String: "Test CA"] as CFDictionary)
                        == errSecSuccess)
                var item: CFTypeRef?
                let labelled = query.merging([kSecAttrLabel as String: "Test CA", kSecReturnData as String: true]) { $1 }
                #expect(SecItemCopyMatching(labelled as CFDictionary, &item) == errSecSuccess)
                #expect(SecItemUpdate(query as CFDictionary, [kSecAttrSerialNumber as String: Data([2])] as CFDictionary)
                        == errSecReadOnlyAttr)
                #expect(SecItemUpdate(query as CFDictionary, [kSecValueData as String: Self.der] as CFDictionary)
                        == errSecUnimplemented)
                #expect(SecItemDelete(query as CFDictionary) == errSecSuccess)
                #expect(SecItemCopyMatching(query as CFDictionary, nil) == errSecItemNotFound)

                #expect(SecItemAdd([kSecClass as String: Self.cert, kSecValueData as String: Data("not DER".utf8)]
                                   as CFDictionary, nil) == errSecParam)
                #expect(SecItemAdd([kSecClass as String: Self.cert, kSecValueData as String: Self.der.prefix(100)]
                                   as CFDictionary, nil) == errSecParam)
                #expect(SecItemAdd([kSecClass as String: Self.cert] as CFDictionary, nil) == errSecParam)
                #expect(SecItemAdd([kSecClass as String: Self.cert, kSecAttrService as String: "s",
                                    kSecValueData as String: Self.der] as CFDictionary, nil) == errSecNoSuchAttr)
            }
        }
    }
}

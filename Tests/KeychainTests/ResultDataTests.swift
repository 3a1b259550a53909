// SPDX-License-Identifier: Apache-2.0
// The CFData objects results carry: NSData in every way a caller can tell, and Data takes them in one copy.

import Foundation
import Security
import Testing

extension KeychainSuites {
    @Suite("Result data objects")
    struct ResultDataTests {
        /// Checks that `object` behaves as an NSData holding `expected` does.
        private func expectPlainNSData(_ object: Any?, holding expected: Data) throws {
            let data = try #require(object as? NSData)
            // `Data(nsData)` copies in one step only from ContiguousBytes; otherwise it walks the bytes one by one.
            #expect(data is any ContiguousBytes)
            #expect(data.length == expected.count)
            #expect(data as Data == expected)
            #expect(Data(referencing: data) == expected)
            #expect(data.isEqual(to: expected))
            #expect(data.isEqual(NSData(data: expected)))
            #expect(NSData(data: expected).isEqual(data))
            #expect(data.hash == NSData(data: expected).hash)
            #expect(AnyHashable(data) == AnyHashable(expected))
            #expect((data.copy() as? NSData)?.isEqual(to: expected) == true)
            #expect((data.mutableCopy() as? NSMutableData)?.isEqual(to: expected) == true)
            #expect(CFGetTypeID(data) == CFDataGetTypeID())
            let archive = try NSKeyedArchiver.archivedData(withRootObject: data, requiringSecureCoding: true)
            let restored = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSData.self, from: archive)
            #expect(restored.map { $0 as Data } == expected)
        }

        @Test("a single item's data and persistent reference come back as such NSData")
        func singleResults() async throws {
            try await withKeychain { _, _, _ in
                for (index, secret) in ["", "p", String(repeating: "long secret ", count: 40)].enumerated() {
                    let account = "a\(index)"
                    #expect(addGenericPassword(service: "svc", account: account, password: secret) == errSecSuccess)
                    let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                                kSecAttrService as String: "svc", kSecAttrAccount as String: account]
                    var data: AnyObject?
                    #expect(SecItemCopyMatching(query.merging([kSecReturnData as String: true]) { $1 } as CFDictionary,
                                                &data) == errSecSuccess)
                    try expectPlainNSData(data, holding: Data(secret.utf8))
                    var reference: AnyObject?
                    #expect(SecItemCopyMatching(query.merging([kSecReturnPersistentRef as String: true]) { $1 }
                                                as CFDictionary, &reference) == errSecSuccess)
                    try expectPlainNSData(reference, holding: try #require(reference as? Data))
                }
            }
        }

        /// Elements of arrays and dictionaries are read out as `Data` on Linux (NSArray and NSDictionary bridge every
        /// NSData they hand out), so only their values can be checked from here; the conversion they go through is
        /// the one ``singleResults()`` shows to be a plain copy.
        @Test("data and data attributes in arrays and dictionaries read back as the stored bytes")
        func collectionResults() async throws {
            try await withKeychain { _, _, _ in
                let secrets = ["", "p", String(repeating: "long secret ", count: 40)]
                for (index, secret) in secrets.enumerated() {
                    #expect(addGenericPassword(service: "svc", account: "a\(index)", password: secret,
                                               extra: [kSecAttrGeneric as String: Data([UInt8(index), 0xFF])])
                            == errSecSuccess)
                }
                var result: AnyObject?
                let dataOnly: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                               kSecAttrService as String: "svc", kSecReturnData as String: true,
                                               kSecMatchLimit as String: kSecMatchLimitAll]
                #expect(SecItemCopyMatching(dataOnly as CFDictionary, &result) == errSecSuccess)
                #expect(result as? [Data] == secrets.map { Data($0.utf8) })

                var described: AnyObject?
                var everything = dataOnly
                everything[kSecReturnAttributes as String] = true
                everything[kSecReturnPersistentRef as String] = true
                #expect(SecItemCopyMatching(everything as CFDictionary, &described) == errSecSuccess)
                let items = try #require(described as? [[String: Any]])
                #expect(items.map { $0[kSecValueData as String] as? Data } == secrets.map { Data($0.utf8) })
                #expect(items.map { $0[kSecAttrGeneric as String] as? Data }
                        == secrets.indices.map { Data([UInt8($0), 0xFF]) })
                #expect(items.allSatisfy { ($0[kSecValuePersistentRef as String] as? Data)?.isEmpty == false })
            }
        }

        @Test("a key's external representation is such an NSData")
        func keyRepresentation() throws {
            let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                                             kSecAttrKeySizeInBits as String: 256]
            var error: Unmanaged<CFError>?
            let key = try #require(SecKeyCreateRandomKey(attributes as CFDictionary, &error))
            let publicKey = try #require(SecKeyCopyPublicKey(key))
            let external = try #require(SecKeyCopyExternalRepresentation(publicKey, &error))
            #expect(external.length == 65)
            try expectPlainNSData(external, holding: external as Data)
        }
    }
}

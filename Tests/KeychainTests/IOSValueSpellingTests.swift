// SPDX-License-Identifier: Apache-2.0
// iOS code's spellings of values and result checks: constants as String, NSNumber and Int32 numbers, Data
// accounts, and CFGetTypeID checks before a forced cast.

import Security
import Foundation
import SecretServiceTestSupport
import Testing

/// The "protect with biometry" save most apps carry somewhere.
private func saveBiometryProtected(_ secret: Data, account: String) throws -> OSStatus {
    var error: Unmanaged<CFError>?
    guard let access = SecAccessControlCreateWithFlags(kCFAllocatorDefault,
                                                       kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly,
                                                       [.biometryCurrentSet, .or, .devicePasscode], &error) else {
        throw error!.takeRetainedValue() as any Error
    }
    let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                kSecAttrAccount as String: account,
                                kSecAttrAccessControl as String: access,
                                kSecValueData as String: secret]
    return SecItemAdd(query as CFDictionary, nil)
}

/// A fresh symmetric key, made and kept the way apps do.
private func makeAndStoreKey(account: String) throws -> Data {
    var bytes = [UInt8](repeating: 0, count: 32)
    let result = SecRandomCopyBytes(kSecRandomDefault, bytes.count, &bytes)
    guard result == errSecSuccess else { throw NSError(domain: NSOSStatusErrorDomain, code: Int(result)) }
    let key = Data(bytes)
    let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                kSecAttrService as String: "encryption-key",
                                kSecAttrAccount as String: account,
                                kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
                                kSecValueData as String: key]
    let status = SecItemAdd(query as CFDictionary, nil)
    guard status == errSecSuccess else { throw NSError(domain: NSOSStatusErrorDomain, code: Int(status)) }
    return key
}

extension KeychainSuites {
    @Suite("iOS value spellings")
    struct IOSValueSpellingTests {
        @Test("constants given as String values, Foundation and fixed-width numbers, Data accounts",
              arguments: Provider.allCases)
        func valueSpellings(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                let add: [String: Any] = [kSecClass as String: kSecClassGenericPassword as String,
                                          kSecAttrService as String: "spellings" as NSString,
                                          kSecAttrAccount as String: "user".data(using: .utf8)!,
                                          kSecAttrGeneric as String: "user".data(using: .utf8)!,
                                          kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked as String,
                                          kSecValueData as String: NSData(data: Data("pw".utf8))]
                #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
                var item: CFTypeRef?
                let byData: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                             kSecAttrService as String: "spellings",
                                             kSecAttrAccount as String: "user".data(using: .utf8)!,
                                             kSecMatchLimit as String: kSecMatchLimitOne as String,
                                             kSecReturnAttributes as String: kCFBooleanTrue as Any]
                #expect(SecItemCopyMatching(byData as CFDictionary, &item) == errSecSuccess)
                let attributes = try #require(item as? [String: Any])
                // A Data account comes back as Data, as on iOS. (Searching with the String of the same bytes finds
                // it too: a documented deviation, README "deviations from Apple".)
                #expect(attributes[kSecAttrAccount as String] as? Data == Data("user".utf8))
                #expect(attributes[kSecAttrAccessible as String] as? String == kSecAttrAccessibleWhenUnlocked as String)

                let internet: [String: Any] = [kSecClass as String: kSecClassInternetPassword,
                                               kSecAttrServer as String: "mail.example.com",
                                               kSecAttrAccount as String: "erin",
                                               kSecAttrPort as String: Int32(993),
                                               kSecAttrProtocol as String: kSecAttrProtocolIMAPS,
                                               kSecValueData as String: Data("imap".utf8)]
                #expect(SecItemAdd(internet as CFDictionary, nil) == errSecSuccess)
                let byPort: [String: Any] = [kSecClass as String: kSecClassInternetPassword,
                                             kSecAttrPort as String: NSNumber(value: 993),
                                             kSecReturnData as String: true]
                #expect(SecItemCopyMatching(byPort as CFDictionary, &item) == errSecSuccess)
                #expect(item as? Data == Data("imap".utf8))
                #expect(SecCopyErrorMessageString(errSecParam, nil) as? String
                    == "One or more parameters passed to a function were not valid.")
            }
        }

        @Test("CFGetTypeID tells the result kinds apart before a forced cast", arguments: Provider.allCases)
        func typeIDs(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                #expect(addGenericPassword(service: "types", account: "a", password: "x") == errSecSuccess)
                var item: CFTypeRef?
                var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                            kSecAttrService as String: "types", kSecReturnData as String: true]
                #expect(SecItemCopyMatching(query as CFDictionary, &item) == errSecSuccess)
                #expect(CFGetTypeID(item) == CFDataGetTypeID())
                query[kSecReturnAttributes as String] = true
                #expect(SecItemCopyMatching(query as CFDictionary, &item) == errSecSuccess)
                #expect(CFGetTypeID(item) == CFDictionaryGetTypeID() && CFGetTypeID(item) != CFDataGetTypeID())
                query[kSecMatchLimit as String] = kSecMatchLimitAll
                #expect(SecItemCopyMatching(query as CFDictionary, &item) == errSecSuccess)
                #expect(CFGetTypeID(item) == CFArrayGetTypeID())
                #expect(CFGetTypeID(kSecClass) == CFStringGetTypeID())
                #expect(CFGetTypeID(kCFBooleanTrue) == CFBooleanGetTypeID())
                #expect(CFGetTypeID(NSNumber(value: 3)) == CFNumberGetTypeID())

                let certificate = try #require(SecCertificateCreateWithData(nil, CertificateTests.der as CFData))
                #expect(SecItemAdd([kSecValueRef as String: certificate] as CFDictionary, nil) == errSecSuccess)
                let search: [String: Any] = [kSecClass as String: kSecClassCertificate, kSecReturnRef as String: true]
                #expect(SecItemCopyMatching(search as CFDictionary, &item) == errSecSuccess)
                guard let item, CFGetTypeID(item) == SecCertificateGetTypeID() else {
                    Issue.record("not a certificate: \(String(describing: item))")
                    return
                }
                let found = item as! SecCertificate
                #expect(found == certificate && CFGetTypeID(found) != SecKeyGetTypeID())
            }
        }

        @Test("access-controlled items compile and are refused with errSecUnimplemented, storing nothing")
        func accessControl() async throws {
            try await withKeychain { _, _, _ in
                let status = try saveBiometryProtected(Data("pin".utf8), account: "bio")
                #expect(status == errSecUnimplemented)
                let stored: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                             kSecAttrAccount as String: "bio"]
                #expect(SecItemCopyMatching(stored as CFDictionary, nil) == errSecItemNotFound)
                var error: Unmanaged<CFError>?
                #expect(SecAccessControlCreateWithFlags(nil, "not an accessibility" as CFString, .userPresence,
                                                        &error) == nil)
                let failure = error?.takeRetainedValue()
                #expect(failure?.domain == NSOSStatusErrorDomain && failure?.code == Int(errSecParam))
            }
        }

        @Test("values round-trip byte for byte: empty, binary with NUL, large, non-ASCII names",
              arguments: Provider.allCases)
        func valueRoundTrips(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                let values: [String: Data] = [
                    "empty": Data(), "binary": Data([0, 255, 0, 1, 0x80, 0xC3]),
                    "large": Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }),
                    "ünïcødé 🔑": Data("pässwörd 🔒".utf8),
                ]
                for (account, value) in values {
                    let add: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                              kSecAttrAccount as String: account, kSecValueData as String: value]
                    #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess, "\(account)")
                }
                var item: CFTypeRef?
                let all: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                          kSecMatchLimit as String: kSecMatchLimitAll,
                                          kSecReturnAttributes as String: true, kSecReturnData as String: true]
                #expect(SecItemCopyMatching(all as CFDictionary, &item) == errSecSuccess)
                let items = try #require(item as? [[String: Any]])
                var found: [String: Data] = [:]
                for entry in items {
                    if let account = entry[kSecAttrAccount as String] as? String {
                        found[account] = entry[kSecValueData as String] as? Data
                    }
                }
                #expect(found == values)

                // Data alone for every match is an array of Data on iOS.
                let dataOnly: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                               kSecMatchLimit as String: kSecMatchLimitAll,
                                               kSecReturnData as String: true]
                #expect(SecItemCopyMatching(dataOnly as CFDictionary, &item) == errSecSuccess)
                #expect(Set(try #require(item as? [Data])) == Set(values.values))

                // Accessibility can change in an update; an attribute of another class cannot appear.
                let one: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                          kSecAttrAccount as String: "binary"]
                #expect(SecItemUpdate(one as CFDictionary, [kSecAttrAccessible as String:
                                      kSecAttrAccessibleAfterFirstUnlock] as CFDictionary) == errSecSuccess)
                let server = one.merging([kSecAttrServer as String: "example.com"]) { $1 }
                #expect(SecItemCopyMatching(server as CFDictionary, nil) == errSecNoSuchAttr)
            }
        }

        @Test("a key made with SecRandomCopyBytes is stored and read back")
        func randomKey() async throws {
            try await withKeychain { _, _, _ in
                let first = try makeAndStoreKey(account: "one")
                let second = try makeAndStoreKey(account: "two")
                #expect(first.count == 32 && first != second)  // equal draws: probability 2^-256
                #expect(readGenericPassword(service: "encryption-key", account: "one").0 == errSecSuccess)
                var nonce = Data(count: 12)
                let status = nonce.withUnsafeMutableBytes { SecRandomCopyBytes(kSecRandomDefault, 12, $0.baseAddress!) }
                #expect(status == errSecSuccess && nonce != Data(count: 12))
                var nothing: [UInt8] = []
                #expect(SecRandomCopyBytes(kSecRandomDefault, 0, &nothing) == errSecSuccess)
                #expect(SecRandomCopyBytes(nil, -1, &nothing) == errSecParam)
            }
        }
    }
}

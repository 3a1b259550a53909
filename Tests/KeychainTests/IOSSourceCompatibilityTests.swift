// SPDX-License-Identifier: Apache-2.0
// iOS keychain code in its everyday spellings, compiled as written and checked for iOS result types and statuses.

import Security
import Foundation
import SecretServiceTestSupport
import Testing

private struct AuthToken: Codable, Equatable {
    var accessToken: String
    var expiresIn: Int
}

extension KeychainSuites {
    @Suite("iOS source compatibility")
    struct IOSSourceCompatibilityTests {
        @Test("a KeychainHelper with CFString-keyed literals saves, updates on duplicate, reads and deletes",
              arguments: Provider.allCases)
        func keychainHelper(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                let helper = KeychainHelper.standard
                helper.save(Data("first".utf8), service: "access-token", account: "facebook")
                helper.save(Data("second".utf8), service: "access-token", account: "facebook")
                #expect(helper.read(service: "access-token", account: "facebook") == Data("second".utf8))

                let token = AuthToken(accessToken: "abc", expiresIn: 3600)
                helper.save(token, service: "auth", account: "api")
                #expect(helper.read(service: "auth", account: "api", type: AuthToken.self) == token)

                helper.delete(service: "access-token", account: "facebook")
                #expect(helper.read(service: "access-token", account: "facebook") == nil)
            }
        }

        @Test("the [String: AnyObject] password-item style with withUnsafeMutablePointer results",
              arguments: Provider.allCases)
        func passwordItemStyle(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                var item = PasswordItem(service: "sample", account: "alice")
                #expect(throws: PasswordItem.KeychainError.self) { try item.readPassword() }
                try item.savePassword("one")
                try item.savePassword("two")
                #expect(try item.readPassword() == "two")
                try PasswordItem(service: "sample", account: "bob").savePassword("three")
                let accounts = try PasswordItem.passwordItems(forService: "sample").map(\.account).sorted()
                #expect(accounts == ["alice", "bob"])

                try item.renameAccount("carol")
                #expect(try PasswordItem(service: "sample", account: "carol").readPassword() == "two")
                try item.deleteItem()
                try item.deleteItem()  // a second delete is errSecItemNotFound, which the code tolerates
                #expect(try PasswordItem.passwordItems(forService: "sample").map(\.account) == ["bob"])
            }
        }

        @Test("the account-only style with delete-then-add and a kept result code", arguments: Provider.allCases)
        func accountOnlyStyle(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                let keychain = PrefixedKeychain(keyPrefix: "app_")
                #expect(keychain.get("token") == nil && keychain.lastResultCode == errSecItemNotFound)
                #expect(keychain.set("one", forKey: "token") && keychain.set("two", forKey: "token"))
                #expect(keychain.set("x", forKey: "other"))
                #expect(keychain.get("token") == "two")
                #expect(keychain.allKeys.sorted() == ["app_other", "app_token"])
                #expect(keychain.clear() && keychain.allKeys.isEmpty)
                #expect(keychain.lastResultCode == errSecItemNotFound && !keychain.clear())
            }
        }

        @Test("statuses read as iOS reports them: noErr, OSStatus values, messages and NSError")
        func statusHandling() async throws {
            try await withKeychain { _, _, _ in
                let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                            kSecAttrService as String: "svc", kSecAttrAccount as String: "acct",
                                            kSecValueData as String: "pw".data(using: .utf8)!]
                var status: OSStatus = SecItemAdd(query as CFDictionary, nil)
                #expect(status == noErr && status == OSStatus(0) && status == errSecSuccess)
                status = SecItemAdd(query as CFDictionary, nil)
                #expect(status == errSecDuplicateItem && status == -25299)
                #expect(keychainErrorDescription(status) == "The specified item already exists in the keychain.")
                let error = keychainNSError(status)
                #expect(error.domain == NSOSStatusErrorDomain && error.code == -25299)
                #expect(SecCopyErrorMessageString(errSecItemNotFound, nil) as String?
                    == "The specified item could not be found in the keychain.")

                let missing: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                              kSecAttrService as String: "nope"]
                #expect(SecItemCopyMatching(missing as CFDictionary, nil) == errSecItemNotFound)
                #expect(SecItemUpdate(missing as CFDictionary,
                                      [kSecValueData as String: Data()] as CFDictionary) == errSecItemNotFound)
                #expect(SecItemDelete(missing as CFDictionary) == errSecItemNotFound)
                // Existence check without a return key and without a result pointer.
                let exists: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                             kSecAttrService as String: "svc"]
                #expect(SecItemCopyMatching(exists as CFDictionary, nil) == errSecSuccess)
            }
        }

        @Test("every boolean spelling apps use: true, kCFBooleanTrue, kCFBooleanTrue!, as Any, NSNumber",
              arguments: Provider.allCases)
        func booleanSpellings(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                #expect(addGenericPassword(service: "bools", account: "a", password: "secret") == errSecSuccess)
                let spellings: [Any] = [true, kCFBooleanTrue!, kCFBooleanTrue as Any, NSNumber(value: true),
                                        kCFBooleanTrue as CFBoolean]
                for spelling in spellings {
                    var item: CFTypeRef?
                    let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                                kSecAttrService as String: "bools", kSecReturnData as String: spelling]
                    #expect(SecItemCopyMatching(query as CFDictionary, &item) == errSecSuccess)
                    #expect(item as? Data == Data("secret".utf8), "spelling \(spelling)")
                }
                var item: CFTypeRef?
                let literal: [String: AnyObject] = [kSecClass as String: kSecClassGenericPassword,
                                                    kSecAttrService as String: "bools" as AnyObject,
                                                    kSecReturnData as String: kCFBooleanTrue,
                                                    kSecMatchLimit as String: kSecMatchLimitOne]
                #expect(SecItemCopyMatching(literal as CFDictionary, &item) == errSecSuccess)
                #expect(String(data: item as! Data, encoding: .utf8) == "secret")
            }
        }

        @Test("NSMutableDictionary queries built key by key", arguments: Provider.allCases)
        func mutableDictionaryQueries(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                let query = NSMutableDictionary()
                query[kSecClass] = kSecClassGenericPassword
                query[kSecAttrService as String] = "mutable"
                query.setObject("acct", forKey: kSecAttrAccount as NSString)
                query.setValue("pw".data(using: .utf8), forKey: kSecValueData as String)
                #expect(SecItemAdd(query, nil) == errSecSuccess)

                query.removeObject(forKey: kSecValueData)
                query.setValue(kSecAttrAccessibleWhenUnlocked, forKey: kSecAttrAccessible as String)
                query.setValue(nil, forKey: kSecAttrAccessible as String)
                query[kSecReturnAttributes] = kCFBooleanTrue
                query[kSecReturnData] = kCFBooleanTrue
                var result: CFTypeRef?
                #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
                let dictionary = result as? NSDictionary
                #expect(dictionary?[kSecAttrAccount] as? String == "acct")
                #expect(dictionary?.object(forKey: kSecValueData) as? Data == Data("pw".utf8))
                #expect(dictionary?.value(forKey: kSecAttrService as String) as? String == "mutable")
                #expect((result as! NSDictionary)[kSecAttrService as String] as? String == "mutable")
                let bridged = result as? [AnyHashable: Any]
                #expect(bridged?[kSecAttrAccount as String] as? String == "acct")
                let cfKeyed = result as? [CFString: Any]
                #expect(cfKeyed?[kSecAttrAccount] as? String == "acct")
            }
        }

        @Test("attributes come back with iOS types: dates, numbers, data, accessibility, synchronizable",
              arguments: Provider.allCases)
        func attributeTypes(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                let before = Date(timeIntervalSinceNow: -5)
                let query: [String: Any] = [
                    kSecClass as String: kSecClassInternetPassword,
                    kSecAttrServer as String: "api.example.com",
                    kSecAttrAccount as String: "dave",
                    kSecAttrProtocol as String: kSecAttrProtocolHTTPS,
                    kSecAttrPort as String: 8443,
                    kSecAttrPath as String: "/login",
                    kSecAttrAuthenticationType as String: kSecAttrAuthenticationTypeHTMLForm,
                    kSecAttrLabel as String: "Example API",
                    kSecAttrDescription as String: "web form password",
                    kSecAttrComment as String: "created by a test",
                    kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
                    kSecValueData as String: Data("hunter2".utf8),
                ]
                #expect(SecItemAdd(query as CFDictionary, nil) == errSecSuccess)

                var item: CFTypeRef?
                let search: [String: Any] = [kSecClass as String: kSecClassInternetPassword,
                                             kSecAttrServer as String: "api.example.com",
                                             kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
                                             kSecReturnAttributes as String: true]
                #expect(SecItemCopyMatching(search as CFDictionary, &item) == errSecSuccess)
                let attributes = try #require(item as? [String: Any])
                #expect(attributes[kSecAttrPort as String] as? Int == 8443)
                #expect(attributes[kSecAttrProtocol as String] as? String == kSecAttrProtocolHTTPS as String)
                #expect(attributes[kSecAttrAuthenticationType as String] as? String
                    == kSecAttrAuthenticationTypeHTMLForm as String)
                #expect(attributes[kSecAttrPath as String] as? String == "/login")
                #expect(attributes[kSecAttrLabel as String] as? String == "Example API")
                #expect(attributes[kSecAttrDescription as String] as? String == "web form password")
                #expect(attributes[kSecAttrComment as String] as? String == "created by a test")
                #expect(attributes[kSecAttrAccessible as String] as? String
                    == kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String)
                #expect(attributes[kSecAttrSynchronizable as String] as? Bool == false)
                let created = try #require(attributes[kSecAttrCreationDate as String] as? Date)
                let modified = try #require(attributes[kSecAttrModificationDate as String] as? Date)
                #expect(created >= before.addingTimeInterval(-1) && modified >= created)
                #expect(attributes[kSecValueData as String] == nil)
            }
        }

        @Test("kSecAttrGeneric blobs, persistent references and arrays of results", arguments: Provider.allCases)
        func genericPersistentAndArrays(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                let generic = try JSONEncoder().encode(["kind": "refresh"])
                var added: CFTypeRef?
                let query: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: "blobs",
                                              kSecAttrAccount: "one", kSecAttrGeneric: generic,
                                              kSecValueData: Data("1".utf8),
                                              kSecAttrAccessible: kSecAttrAccessibleWhenUnlocked,
                                              kSecReturnPersistentRef: true]
                #expect(SecItemAdd(query as CFDictionary, &added) == errSecSuccess)
                let reference = try #require(added as? Data)
                #expect(addGenericPassword(service: "blobs", account: "two", password: "2") == errSecSuccess)

                var item: CFTypeRef?
                let byReference: [String: Any] = [kSecValuePersistentRef as String: reference,
                                                  kSecReturnData as String: true]
                #expect(SecItemCopyMatching(byReference as CFDictionary, &item) == errSecSuccess)
                #expect(item as! Data == Data("1".utf8))

                var all: CFTypeRef?
                let listQuery: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                                kSecAttrService as String: "blobs",
                                                kSecMatchLimit as String: kSecMatchLimitAll,
                                                kSecReturnAttributes as String: true, kSecReturnData as String: true]
                #expect(SecItemCopyMatching(listQuery as CFDictionary, &all) == errSecSuccess)
                let items = try #require(all as? [[String: Any]])
                #expect(items.compactMap { $0[kSecAttrAccount as String] as? String }.sorted() == ["one", "two"])
                let one = try #require(items.first { $0[kSecAttrAccount as String] as? String == "one" })
                #expect(one[kSecAttrGeneric as String] as? Data == generic)
                #expect(one[kSecValueData as String] as? Data == Data("1".utf8))
                #expect((all as? NSArray)?.count == 2)

                let updated = SecItemUpdate([kSecValuePersistentRef as String: reference] as CFDictionary,
                                            [kSecValueData as String: Data("uno".utf8)] as CFDictionary)
                #expect(updated == errSecSuccess)
                #expect(SecItemDelete([kSecValuePersistentRef: reference] as CFDictionary) == errSecSuccess)
                #expect(SecItemCopyMatching(byReference as CFDictionary, &item) == errSecItemNotFound)
                #expect(item == nil)
            }
        }

        @Test("the logout loop over every class deletes passwords and finds no identity", arguments: Provider.allCases)
        func clearAllClasses(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                #expect(addGenericPassword(service: "wipe", account: "a", password: "x") == errSecSuccess)
                let statuses = clearAllKeychainItems()
                #expect(statuses == [errSecSuccess, errSecItemNotFound, errSecItemNotFound, errSecItemNotFound,
                                     errSecItemNotFound])
                #expect(readGenericPassword(service: "wipe", account: "a").0 == errSecItemNotFound)
            }
        }

        @Test("identity queries: not found without a private key and certificate pair, unimplemented with one")
        func identityQueries() async throws {
            try await withKeychain { _, _, _ in
                var item: CFTypeRef?
                let search: [String: Any] = [kSecClass as String: kSecClassIdentity, kSecReturnRef as String: true,
                                             kSecMatchLimit as String: kSecMatchLimitAll]
                let delete = [kSecClass: kSecClassIdentity] as CFDictionary
                let certificate: [String: Any] = [kSecClass as String: kSecClassCertificate,
                                                  kSecValueData as String: CertificateTests.der]
                #expect(SecItemAdd(certificate as CFDictionary, nil) == errSecSuccess)
                // The public half of the certificate's key makes no identity; only the private half does.
                let key: [String: Any] = [kSecClass as String: kSecClassKey,
                                          kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                                          kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
                                          kSecValueData as String: KeyTests.ecPublic]
                #expect(SecItemAdd(key as CFDictionary, nil) == errSecSuccess)
                #expect(SecItemCopyMatching(search as CFDictionary, &item) == errSecItemNotFound)
                #expect(item == nil)
                #expect(SecItemDelete(delete) == errSecItemNotFound)

                var privateKey = key
                privateKey[kSecAttrKeyClass as String] = kSecAttrKeyClassPrivate
                privateKey[kSecValueData as String] = KeyTests.ecPrivate
                #expect(SecItemAdd(privateKey as CFDictionary, nil) == errSecSuccess)
                #expect(SecItemCopyMatching(search as CFDictionary, &item) == errSecUnimplemented)
                #expect(SecItemDelete(delete) == errSecUnimplemented)
                // Nothing was deleted by the refused identity delete.
                #expect(SecItemCopyMatching(certificate.filter { $0.key == kSecClass as String } as CFDictionary, nil)
                        == errSecSuccess)
            }
        }
    }
}

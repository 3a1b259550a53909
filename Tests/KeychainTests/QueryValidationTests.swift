// SPDX-License-Identifier: Apache-2.0
// Constants, messages and the query checks that fail before any provider is contacted.

import Foundation
import CofferKeychain
import Testing

extension KeychainSuites {
    @Suite("Constants, status messages and invalid queries")
    struct QueryValidationTests {
        @Test("constants carry Apple's raw values")
        func rawValues() {
            #expect(kSecClass as String == "class")
            #expect(kSecClassGenericPassword as String == "genp")
            #expect(kSecClassInternetPassword as String == "inet")
            #expect(kSecAttrAccount as String == "acct")
            #expect(kSecAttrService as String == "svce")
            #expect(kSecAttrServer as String == "srvr")
            #expect(kSecAttrProtocolHTTPS as String == "htps")
            #expect(kSecAttrProtocolFTP as String == "ftp ")
            #expect(kSecAttrAuthenticationTypeHTTPBasic as String == "http")
            #expect(kSecAttrAccessibleAfterFirstUnlock as String == "ck")
            #expect(kSecMatchLimitAll as String == "m_LimitAll")
            #expect(kSecReturnPersistentRef as String == "r_PersistentRef")
            #expect(kSecValueData as String == "v_Data")
            #expect(kSecUseAuthenticationUIFail as String == "u_AuthUIF")
            #expect(kSecAttrSynchronizableAny as String == "syna")
            #expect(errSecDuplicateItem == -25299 && errSecItemNotFound == -25300 && errSecParam == -50)
            #expect(errSecInteractionNotAllowed == -25308 && errSecNotAvailable == -25291 && noErr == 0)
        }

        @Test("SecCopyErrorMessageString returns Apple's text, else OSStatus <n>")
        func messages() {
            #expect(SecCopyErrorMessageString(errSecItemNotFound, nil) as String?
                    == "The specified item could not be found in the keychain.")
            #expect(SecCopyErrorMessageString(errSecSuccess, nil) as String? == "No error.")
            #expect(SecCopyErrorMessageString(errSecInternalComponent, nil) as String? == "OSStatus -2070")
            #expect(SecCopyErrorMessageString(12345, nil) as String? == "OSStatus 12345")
        }

        // None of these reach a provider: the process-wide configuration points at a bus that does not exist, so a
        // check that wrongly let a query through would fail with errSecNotAvailable instead.
        static let nowhere = KeychainConfiguration(busAddress: "unix:path=/nonexistent/coffer-test-bus")

        @Test("an attribute the class lacks is errSecNoSuchAttr")
        func noSuchAttribute() {
            KeychainConfiguration.withConfiguration(Self.nowhere) {
                let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrServer as String: "h"]
                #expect(SecItemCopyMatching(query as CFDictionary, nil) == errSecNoSuchAttr)
                #expect(SecItemDelete(query as CFDictionary) == errSecNoSuchAttr)
            }
        }

        @Test("invalid queries are errSecParam")
        func invalidQueries() {
            KeychainConfiguration.withConfiguration(Self.nowhere) {
                let genp: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s"]
                var item: CFTypeRef?
                // No class.
                #expect(SecItemCopyMatching([kSecAttrService as String: "s"] as CFDictionary, &item) == errSecParam)
                // A return key with no result pointer.
                #expect(SecItemCopyMatching(genp.merging([kSecReturnData as String: true]) { $1 } as CFDictionary, nil)
                        == errSecParam)
                #expect(SecItemAdd(genp.merging([kSecReturnData as String: true]) { $1 } as CFDictionary, nil)
                        == errSecParam)
                // Return keys in an update, match keys in a delete or in the attributes to update.
                #expect(SecItemUpdate(genp.merging([kSecReturnData as String: true]) { $1 } as CFDictionary,
                                      [kSecAttrComment as String: "c"] as CFDictionary) == errSecParam)
                #expect(SecItemUpdate(genp as CFDictionary, [kSecMatchLimit as String: kSecMatchLimitAll] as CFDictionary)
                        == errSecParam)
                #expect(SecItemDelete(genp.merging([kSecMatchLimit as String: kSecMatchLimitOne]) { $1 } as CFDictionary)
                        == errSecParam)
                // Wrong value types.
                #expect(SecItemCopyMatching(genp.merging([kSecAttrPort as String: "x"]) { $1 } as CFDictionary, &item)
                        == errSecNoSuchAttr)
                let inet: [String: Any] = [kSecClass as String: kSecClassInternetPassword, kSecAttrPort as String: "x"]
                #expect(SecItemCopyMatching(inet as CFDictionary, &item) == errSecParam)
                #expect(SecItemCopyMatching(genp.merging([kSecReturnData as String: "yes"]) { $1 } as CFDictionary, &item)
                        == errSecParam)
                #expect(SecItemCopyMatching(genp.merging([kSecMatchLimit as String: "lots"]) { $1 } as CFDictionary, &item)
                        == errSecParam)
                #expect(SecItemAdd(genp.merging([kSecValueData as String: "not data"]) { $1 } as CFDictionary, nil)
                        == errSecParam)
                #expect(SecItemCopyMatching(genp.merging(["bogus": 1]) { $1 } as CFDictionary, &item) == errSecParam)
            }
        }

        @Test("more invalid dictionaries: item lists in searches, Any on add, read-only dates, non-string keys")
        func moreInvalidQueries() {
            KeychainConfiguration.withConfiguration(Self.nowhere) {
                let genp: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s"]
                var item: CFTypeRef?
                #expect(SecItemCopyMatching(genp.merging([kSecUseItemList as String: [Data()]]) { $1 } as CFDictionary,
                                            &item) == errSecParam)
                #expect(SecItemAdd(genp.merging([kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]) { $1 }
                                   as CFDictionary, nil) == errSecParam)
                #expect(SecItemAdd(genp.merging([kSecAttrCreationDate as String: Date()]) { $1 } as CFDictionary, nil)
                        == errSecReadOnlyAttr)
                #expect(SecItemCopyMatching(genp.merging([kSecMatchLimit as String: 0]) { $1 } as CFDictionary, &item)
                        == errSecParam)
                #expect(SecItemCopyMatching(genp.merging([kSecUseAuthenticationUI as String: "sometimes"]) { $1 }
                                            as CFDictionary, &item) == errSecParam)
                let numericKey: NSDictionary = [kSecClass: kSecClassGenericPassword, NSNumber(value: 7): "x"]
                #expect(SecItemCopyMatching(numericKey, &item) == errSecParam)
                #expect(SecItemUpdate(genp as CFDictionary, [kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail]
                                      as CFDictionary) == errSecParam)
            }
        }

        @Test("features that cannot be honoured are errSecUnimplemented, never a silent downgrade")
        func unimplementedFeatures() {
            KeychainConfiguration.withConfiguration(Self.nowhere) {
                let genp: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s",
                                           kSecValueData as String: Data("p".utf8)]
                // Passcode-bound accessibility and access-control flags (biometry, user presence).
                #expect(SecItemAdd(genp.merging([kSecAttrAccessible as String:
                                                    kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly]) { $1 }
                                   as CFDictionary, nil) == errSecUnimplemented)
                #expect(SecItemAdd(genp.merging([kSecAttrAccessControl as String: Data([1])]) { $1 } as CFDictionary, nil)
                        == errSecUnimplemented)
                // Item references and certificate-only search keys.
                var item: CFTypeRef?
                let search: [String: Any] = [kSecClass as String: kSecClassGenericPassword]
                #expect(SecItemCopyMatching(search.merging([kSecValueRef as String: Data()]) { $1 } as CFDictionary, &item)
                        == errSecUnimplemented)
                #expect(SecItemCopyMatching(search.merging([kSecMatchPolicy as String: "p"]) { $1 } as CFDictionary, &item)
                        == errSecUnimplemented)
                #expect(SecItemCopyMatching(search.merging([kSecMatchSearchList as String: [Data()]]) { $1 }
                                            as CFDictionary, &item) == errSecUnimplemented)
            }
        }

        @Test("writing identities and matching by certificate reference are errSecUnimplemented, never a silent success")
        func unsupportedClasses() throws {
            let certificate = try #require(SecCertificateCreateWithData(nil, CertificateTests.der as CFData))
            KeychainConfiguration.withConfiguration(Self.nowhere) {
                var item: CFTypeRef?
                #expect(SecItemCopyMatching([kSecClass as String: kSecClassCertificate,
                                             kSecMatchIssuers as String: [Data()]] as CFDictionary, &item)
                        == errSecUnimplemented)
                #expect(SecItemDelete([kSecValueRef as String: certificate] as CFDictionary) == errSecUnimplemented)
                #expect(SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecValueRef as String: certificate]
                                   as CFDictionary, nil) == errSecParam)
                // Identity searches and deletes reach the provider (IOSSourceCompatibilityTests); writes cannot.
                let identity = [kSecClass as String: kSecClassIdentity] as CFDictionary
                #expect(SecItemAdd(identity, nil) == errSecUnimplemented)
                #expect(SecItemUpdate(identity, [kSecAttrLabel as String: "x"] as CFDictionary) == errSecUnimplemented)
            }
        }

        @Test("no bus at the configured address is errSecNotAvailable")
        func noBus() {
            KeychainConfiguration.withConfiguration(Self.nowhere) {
                #expect(addGenericPassword(service: "s", account: "a", password: "p") == errSecNotAvailable)
            }
        }
    }
}

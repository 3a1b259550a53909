// SPDX-License-Identifier: Apache-2.0
// Apple's documented keychain code, compiled as written, run against every provider.

import Security
import Foundation
import SecretServiceTestSupport
import Testing

// The types Apple's articles declare around their snippets ("Adding a password to the keychain" and the two
// articles after it); everything below them is the articles' code, unchanged.
struct Credentials {
    var username: String
    var password: String
}

enum KeychainError: Error {
    case noPassword
    case unexpectedPasswordData
    case unhandledError(status: OSStatus)
}

let server = "www.example.com"

func addCredentials(_ credentials: Credentials) throws {
    let account = credentials.username
    let password = credentials.password.data(using: String.Encoding.utf8)!
    let query: [String: Any] = [kSecClass as String: kSecClassInternetPassword,
                                kSecAttrAccount as String: account,
                                kSecAttrServer as String: server,
                                kSecValueData as String: password]
    let status = SecItemAdd(query as CFDictionary, nil)
    guard status == errSecSuccess else { throw KeychainError.unhandledError(status: status) }
}

func searchCredentials() throws -> Credentials {
    let query: [String: Any] = [kSecClass as String: kSecClassInternetPassword,
                                kSecAttrServer as String: server,
                                kSecMatchLimit as String: kSecMatchLimitOne,
                                kSecReturnAttributes as String: true,
                                kSecReturnData as String: true]
    var item: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &item)
    guard status != errSecItemNotFound else { throw KeychainError.noPassword }
    guard status == errSecSuccess else { throw KeychainError.unhandledError(status: status) }
    guard let existingItem = item as? [String : Any],
        let passwordData = existingItem[kSecValueData as String] as? Data,
        let password = String(data: passwordData, encoding: String.Encoding.utf8),
        let account = existingItem[kSecAttrAccount as String] as? String
    else {
        throw KeychainError.unexpectedPasswordData
    }
    return Credentials(username: account, password: password)
}

func updateCredentials(_ credentials: Credentials) throws {
    let query: [String: Any] = [kSecClass as String: kSecClassInternetPassword,
                                kSecAttrServer as String: server]
    let account = credentials.username
    let password = credentials.password.data(using: String.Encoding.utf8)!
    let attributes: [String: Any] = [kSecAttrAccount as String: account,
                                     kSecValueData as String: password]
    let status = SecItemUpdate(query as CFDictionary, attributes as CFDictionary)
    guard status != errSecItemNotFound else { throw KeychainError.noPassword }
    guard status == errSecSuccess else { throw KeychainError.unhandledError(status: status) }
}

func deleteCredentials() throws {
    let query: [String: Any] = [kSecClass as String: kSecClassInternetPassword,
                                kSecAttrServer as String: server]
    let status = SecItemDelete(query as CFDictionary)
    guard status == errSecSuccess || status == errSecItemNotFound else {
        throw KeychainError.unhandledError(status: status)
    }
}

extension KeychainSuites {
    @Suite("Apple's documented keychain code")
    struct AppleSnippetTests {
        @Test("the add / search / update / delete internet-password flow runs unchanged", arguments: Provider.allCases)
        func internetPasswordFlow(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                try addCredentials(Credentials(username: "alice", password: "first secret"))
                let found = try searchCredentials()
                #expect(found.username == "alice")
                #expect(found.password == "first secret")

                try updateCredentials(Credentials(username: "bob", password: "second secret"))
                let updated = try searchCredentials()
                #expect(updated.username == "bob")
                #expect(updated.password == "second secret")

                try deleteCredentials()
                #expect(throws: KeychainError.self) { try searchCredentials() }
                try deleteCredentials()  // deleting nothing is tolerated by the article's code
            }
        }

        @Test("the issue's snippets compile as written, with CFTypeRef and AnyObject results", arguments: Provider.allCases)
        func issueSnippets(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                let account = "carol"
                let password = "pw".data(using: .utf8)!
                let query: [String: Any] = [kSecClass as String: kSecClassInternetPassword, kSecAttrAccount as String: account, kSecAttrServer as String: server, kSecValueData as String: password]
                let status = SecItemAdd(query as CFDictionary, nil)
                guard status == errSecSuccess else { throw KeychainError.unhandledError(status: status) }
                var item: CFTypeRef?
                let status2 = SecItemCopyMatching([kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: server, kSecMatchLimit as String: kSecMatchLimitOne, kSecReturnAttributes as String: true, kSecReturnData as String: true] as CFDictionary, &item)
                #expect(status2 == errSecSuccess)
                guard let existingItem = item as? [String: Any], let passwordData = existingItem[kSecValueData as String] as? Data, let password = String(data: passwordData, encoding: .utf8), let account = existingItem[kSecAttrAccount as String] as? String else {
                    Issue.record("unexpected result \(String(describing: item))")
                    return
                }
                #expect(password == "pw" && account == "carol")

                // `[CFString: Any]` keys, `kCFBooleanTrue`, an NSDictionary literal and an `AnyObject?` result.
                var other: AnyObject?
                let cfQuery: [CFString: Any] = [kSecClass: kSecClassInternetPassword, kSecAttrServer: server,
                                                kSecReturnData: kCFBooleanTrue!]
                #expect(SecItemCopyMatching(cfQuery as CFDictionary, &other) == errSecSuccess)
                #expect((other as? Data) == password.data(using: .utf8))
                let literal: NSDictionary = [kSecClass: kSecClassInternetPassword, kSecAttrServer: server]
                #expect(SecItemDelete(literal) == noErr)
            }
        }
    }
}

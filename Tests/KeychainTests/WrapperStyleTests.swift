// SPDX-License-Identifier: Apache-2.0
// Keychain code in the styles of the popular wrappers (KeychainAccess, SwiftKeychainWrapper, SimpleKeychain,
// Locksmith), written for these tests: how they build queries from constants and read results back.

import Foundation
import Security
import SecretServiceTestSupport
import Testing

/// SwiftKeychainWrapper-style: the constants kept as `String` properties, a query builder, status checks.
private struct StringKeyedWrapper {
    private let secClass: String = kSecClass as String
    private let secAttrService: String = kSecAttrService as String
    private let secAttrAccount: String = kSecAttrAccount as String
    private let secValueData: String = kSecValueData as String
    private let secReturnData: String = kSecReturnData as String
    private let secMatchLimit: String = kSecMatchLimit as String
    let serviceName: String

    private func query(forKey key: String) -> [String: Any] {
        [secClass: kSecClassGenericPassword, secAttrService: serviceName, secAttrAccount: key]
    }

    @discardableResult
    func set(_ value: String, forKey key: String) -> Bool {
        var query = query(forKey: key)
        query[secValueData] = value.data(using: .utf8)
        let status = SecItemAdd(query as CFDictionary, nil)
        if status == errSecDuplicateItem {
            return SecItemUpdate(self.query(forKey: key) as CFDictionary,
                                 [secValueData: value.data(using: .utf8)!] as CFDictionary) == errSecSuccess
        }
        return status == errSecSuccess
    }

    func string(forKey key: String) -> String? {
        var query = query(forKey: key)
        query[secMatchLimit] = kSecMatchLimitOne
        query[secReturnData] = kCFBooleanTrue
        var result: AnyObject?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        guard status == noErr, let data = result as? Data else { return nil }
        return String(data: data, encoding: .utf8)
    }
}

/// Locksmith-style: protocols describe an item, their extensions build the dictionary with `String(kSec…)` keys.
private protocol SecureStorable {
    var service: String { get }
    var account: String { get }
}

extension SecureStorable {
    var baseQuery: [String: Any] {
        [String(kSecClass): String(kSecClassGenericPassword), String(kSecAttrService): service,
         String(kSecAttrAccount): account]
    }

    func save(_ data: [String: String]) throws -> OSStatus {
        var query = baseQuery
        query[String(kSecValueData)] = try JSONEncoder().encode(data)
        return SecItemAdd(query as CFDictionary, nil)
    }

    func read() -> [String: String]? {
        var query = baseQuery
        query[String(kSecReturnData)] = true
        var result: AnyObject?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, let data = result as? Data else {
            return nil
        }
        return try? JSONDecoder().decode([String: String].self, from: data)
    }
}

private struct TwitterAccount: SecureStorable {
    let service = "Twitter"
    let account: String
}

extension KeychainSuites {
    @Suite("Wrapper-style code: constants and plain strings are the same keys")
    struct WrapperStyleTests {
        @Test("a constant and its raw string are the same AnyHashable, also as dictionary keys")
        func constantsHashLikeStrings() {
            #expect(AnyHashable(kSecAttrAccount) == AnyHashable("acct"))
            #expect(AnyHashable(kSecClassGenericPassword) == AnyHashable("genp"))
            let plain: [AnyHashable: Any] = ["acct": "alice"]
            #expect(plain[kSecAttrAccount] as? String == "alice")
            let constants: [AnyHashable: Any] = [kSecAttrAccount: "alice"]
            #expect(constants["acct"] as? String == "alice")
            // SimpleKeychain-style query comparison.
            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                        kSecAttrService as String: "svc", kSecAttrAccount as String: "alice"]
            #expect(NSDictionary(dictionary: query).isEqual(to: query))
            let constantKeyed: [AnyHashable: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrAccount: "alice"]
            #expect(NSDictionary(dictionary: constantKeyed).isEqual(to: constantKeyed))
            #expect(NSDictionary(dictionary: constantKeyed).isEqual(to: ["class": "genp", "acct": "alice"]))
        }

        @Test("KeychainAccess-style: attributes read back from [AnyHashable: Any] with the constants")
        func attributesByConstant() async throws {
            try await withKeychain { _, _, _ in
                #expect(addGenericPassword(service: "svc", account: "alice", password: "p") == errSecSuccess)
                var result: AnyObject?
                let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                            kSecAttrService as String: "svc", kSecReturnAttributes as String: true,
                                            kSecReturnData as String: true, kSecMatchLimit as String: kSecMatchLimitAll]
                #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
                let items = try #require(result as? [[AnyHashable: Any]])
                #expect(items.count == 1)
                #expect(items.first?[kSecAttrAccount] as? String == "alice")
                #expect(items.first?[kSecAttrService] as? String == "svc")
                #expect(items.first?[kSecValueData] as? Data == Data("p".utf8))
                #expect(items.first?[kSecClass] as? String == kSecClassGenericPassword as String)
            }
        }

        @Test("SwiftKeychainWrapper-style set, overwrite and read")
        func stringKeyedWrapper() async throws {
            try await withKeychain { _, _, _ in
                let wrapper = StringKeyedWrapper(serviceName: "com.example.wrapper")
                #expect(wrapper.set("one", forKey: "token"))
                #expect(wrapper.set("two", forKey: "token"))
                #expect(wrapper.string(forKey: "token") == "two")
                #expect(wrapper.string(forKey: "missing") == nil)
            }
        }

        @Test("Locksmith-style protocol items")
        func protocolItems() async throws {
            try await withKeychain { _, _, _ in
                let account = TwitterAccount(account: "alice")
                let saved = try account.save(["token": "t1"])
                #expect(saved == errSecSuccess)
                #expect(account.read() == ["token": "t1"])
                #expect(TwitterAccount(account: "bob").read() == nil)
            }
        }
    }
}

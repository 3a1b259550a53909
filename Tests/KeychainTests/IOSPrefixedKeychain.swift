// SPDX-License-Identifier: Apache-2.0
// Account-only keychain code in the style of the popular small wrappers, kept exactly as such code reads.

import Security
import Foundation

/// String constants, delete-then-add, and a result code kept for the caller.
final class PrefixedKeychain {
    static let klass = kSecClass as String
    static let attrAccount = kSecAttrAccount as String
    static let valueData = kSecValueData as String
    static let returnData = kSecReturnData as String
    static let matchLimit = kSecMatchLimit as String

    private(set) var lastResultCode: OSStatus = noErr
    let keyPrefix: String

    init(keyPrefix: String = "") {
        self.keyPrefix = keyPrefix
    }

    @discardableResult
    func set(_ value: String, forKey key: String) -> Bool {
        guard let data = value.data(using: .utf8) else { return false }
        delete(key)
        let query: [String: Any] = [Self.klass: kSecClassGenericPassword,
                                    Self.attrAccount: keyPrefix + key,
                                    Self.valueData: data,
                                    kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked]
        lastResultCode = SecItemAdd(query as CFDictionary, nil)
        return lastResultCode == noErr
    }

    func get(_ key: String) -> String? {
        let query: [String: Any] = [Self.klass: kSecClassGenericPassword,
                                    Self.attrAccount: keyPrefix + key,
                                    Self.returnData: kCFBooleanTrue!,
                                    Self.matchLimit: kSecMatchLimitOne]
        var result: AnyObject?
        lastResultCode = withUnsafeMutablePointer(to: &result) {
            SecItemCopyMatching(query as CFDictionary, UnsafeMutablePointer($0))
        }
        guard lastResultCode == noErr, let data = result as? Data else { return nil }
        return String(data: data, encoding: .utf8)
    }

    var allKeys: [String] {
        let query: [String: Any] = [Self.klass: kSecClassGenericPassword,
                                    Self.returnData: true,
                                    kSecReturnAttributes as String: true,
                                    kSecReturnRef as String: true,
                                    Self.matchLimit: kSecMatchLimitAll]
        var result: AnyObject?
        lastResultCode = withUnsafeMutablePointer(to: &result) {
            SecItemCopyMatching(query as CFDictionary, UnsafeMutablePointer($0))
        }
        guard lastResultCode == noErr else { return [] }
        return (result as? [[String: Any]])?.compactMap { $0[Self.attrAccount] as? String } ?? []
    }

    @discardableResult
    func delete(_ key: String) -> Bool {
        let query: [String: Any] = [Self.klass: kSecClassGenericPassword, Self.attrAccount: keyPrefix + key]
        lastResultCode = SecItemDelete(query as CFDictionary)
        return lastResultCode == noErr
    }

    @discardableResult
    func clear() -> Bool {
        lastResultCode = SecItemDelete([Self.klass: kSecClassGenericPassword] as CFDictionary)
        return lastResultCode == noErr
    }
}

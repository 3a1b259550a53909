// SPDX-License-Identifier: Apache-2.0
// The Keychain library's side of `make bench`: SecItemCopyMatching against the provider on the session bus.
//
//   keychain-bench seed COUNT      replaces the bench items with COUNT generic passwords (service
//                                  coffer-bench-keychain, accounts item-0 …, secrets secret-0 …)
//   keychain-bench one CALLS       CALLS searches for item-0 with kSecReturnData; prints "keychain1 NANOSECONDS" each
//   keychain-bench all CALLS COUNT CALLS searches for every bench item with kSecMatchLimitAll + kSecReturnData, each
//                                  checked to return COUNT secrets; prints "keychain100 NANOSECONDS" each
//
// Each timed mode makes one untimed call first, so the connection and its transfer session are open (libsecret's
// lookup keeps its session too). A wrong answer exits non-zero: a fast wrong answer is no figure.

import Foundation
import Security

let service = "coffer-bench-keychain"

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("keychain-bench: \(message)\n".utf8))
    exit(1)
}

func number(_ index: Int) -> Int {
    guard CommandLine.arguments.count > index, let value = Int(CommandLine.arguments[index]), value > 0 else {
        fail("usage: keychain-bench seed COUNT | one CALLS | all CALLS COUNT")
    }
    return value
}

func nanoseconds(_ body: () -> Void) -> UInt64 {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return DispatchTime.now().uptimeNanoseconds - start
}

func seed(_ count: Int) {
    let all: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
    let deleted = SecItemDelete(all as CFDictionary)
    guard deleted == errSecSuccess || deleted == errSecItemNotFound else { fail("delete returned \(deleted)") }
    for index in 0..<count {
        var item = all
        item[kSecAttrAccount as String] = "item-\(index)"
        item[kSecValueData as String] = Data("secret-\(index)".utf8)
        let status = SecItemAdd(item as CFDictionary, nil)
        guard status == errSecSuccess else { fail("add returned \(status)") }
    }
}

func readOne() {
    let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                                kSecAttrAccount as String: "item-0", kSecReturnData as String: true]
    var result: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    guard status == errSecSuccess, let data = result as? Data, data == Data("secret-0".utf8) else {
        fail("one-item search returned \(status)")
    }
}

func readAll(expecting count: Int) {
    let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                                kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnData as String: true]
    var result: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    guard status == errSecSuccess, let values = result as? [Data], values.count == count else {
        fail("search for all items returned \(status)")
    }
}

switch CommandLine.arguments.dropFirst().first {
case "seed":
    seed(number(2))
case "one":
    readOne()
    for _ in 0..<number(2) { print("keychain1", nanoseconds(readOne)) }
case "all":
    let count = number(3)
    readAll(expecting: count)
    for _ in 0..<number(2) { print("keychain100", nanoseconds { readAll(expecting: count) }) }
default:
    fail("usage: keychain-bench seed COUNT | one CALLS | all CALLS COUNT")
}

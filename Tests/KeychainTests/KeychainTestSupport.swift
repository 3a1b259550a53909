// SPDX-License-Identifier: Apache-2.0
// Runs a test against cofferd on a private bus with the Keychain library pointed at that bus.

import DBusWire
import Foundation
import Keychain
import SecretServiceClient
import SecretServiceTestSupport

/// The access group tests write to by default.
let testGroup = "io.coffer.tests"

/// Runs `body` with a fresh private bus, cofferd on it (logged in, unlocked), and every `SecItem…` call of the
/// task bound to that bus; closes the library's connection before the bus goes away.
func withKeychain<T>(
    accessGroup: String = testGroup, accessGroups: [String]? = nil,
    _ body: (TestBus, DaemonHarness, SecretService) async throws -> T
) async throws -> T {
    try await DaemonHarness.withDaemon(.subprocess) { bus, harness, client in
        let configuration = KeychainConfiguration(
            busAddress: bus.address, accessGroup: accessGroup, accessGroups: accessGroups,
            lockDirectory: bus.directory.path)
        do {
            let result = try await KeychainConfiguration.withConfiguration(configuration) {
                try await body(bus, harness, client)
            }
            await KeychainLibrary.closeConnection(for: configuration)
            return result
        } catch {
            await KeychainLibrary.closeConnection(for: configuration)
            throw error
        }
    }
}

/// Adds a generic password and returns the status.
@discardableResult
func addGenericPassword(service: String, account: String, password: String, extra: [String: Any] = [:]) -> OSStatus {
    var query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
        kSecAttrAccount as String: account, kSecValueData as String: Data(password.utf8),
    ]
    query.merge(extra) { $1 }
    return SecItemAdd(query as CFDictionary, nil)
}

/// Reads a generic password's secret as text, or returns the failing status.
func readGenericPassword(service: String, account: String, extra: [String: Any] = [:]) -> (OSStatus, String?) {
    var query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
        kSecAttrAccount as String: account, kSecReturnData as String: true,
    ]
    query.merge(extra) { $1 }
    var item: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &item)
    return (status, (item as? Data).flatMap { String(data: $0, encoding: .utf8) })
}

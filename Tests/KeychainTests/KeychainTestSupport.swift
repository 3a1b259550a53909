// SPDX-License-Identifier: Apache-2.0
// Runs a test against a Secret Service provider (cofferd or gnome-keyring) on a private bus, with the Keychain
// library pointed at that bus.

import DBusWire
import Foundation
import CofferKeychain
import SecretServiceClient
import SecretServiceTestSupport
import Testing

/// The access group tests write to by default.
let testGroup = "io.coffer.tests"

/// The Secret Service providers every behavioural Keychain test runs against, to show the library depends on
/// nothing but the specification.
typealias Provider = TestProvider

/// Runs `body` with a fresh private bus, `provider` on it (logged in, unlocked), and every `SecItem…` call of the
/// task bound to that bus; closes the library's connection before the bus goes away.
func withKeychain<T>(
    _ provider: Provider = .cofferd, accessGroup: String = testGroup, accessGroups: [String]? = nil,
    adoptsForeignItems: Bool = false,
    _ body: (TestBus, DaemonHarness, SecretService) async throws -> T
) async throws -> T {
    try await TestBus.withPrivateBus { bus in
        let harness = try await provider.start(on: bus)
        let configuration = KeychainConfiguration(
            busAddress: bus.address, accessGroup: accessGroup, accessGroups: accessGroups,
            lockDirectory: bus.directory.path, adoptsForeignItems: adoptsForeignItems)
        let client: SecretService
        do {
            client = try await SecretService.connect(address: bus.address)
        } catch {
            await harness.stop()
            throw error
        }
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await KeychainConfiguration.withConfiguration(configuration) {
                try await body(bus, harness, client)
            })
        } catch {
            outcome = .failure(error)
        }
        await KeychainLibrary.closeConnection(for: configuration)
        await client.close()
        await harness.stop()
        return try outcome.get()
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

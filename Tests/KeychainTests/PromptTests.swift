// SPDX-License-Identifier: Apache-2.0
// Locked collections with prompts allowed: an accepted unlock prompt reads the item, a dismissed one is -128.

import Foundation
import Keychain
import SecretServiceClient
import SecretServiceTestSupport
import Testing

extension KeychainSuites {
    @Suite("Unlock prompts")
    struct PromptTests {
        /// Starts cofferd whose scripted pinentry gives `answers`, adds an item, locks the default collection, then
        /// reads the item with prompts allowed.
        private func readAfterLocking(pinentryAnswers: [String]?) async throws -> (OSStatus, String?) {
            try await TestBus.withPrivateBus { bus in
                let harness = try await DaemonHarness.start(
                    on: bus, options: .init(pinentryAnswers: pinentryAnswers))
                let client = try await SecretService.connect(address: bus.address)
                let configuration = KeychainConfiguration(busAddress: bus.address, accessGroup: testGroup,
                                                          lockDirectory: bus.directory.path)
                let outcome = try await KeychainConfiguration.withConfiguration(configuration) {
                    #expect(addGenericPassword(service: "prompted", account: "a", password: "behind a prompt")
                            == errSecSuccess)
                    try await client.lock([try await client.defaultCollection()])
                    return readGenericPassword(service: "prompted", account: "a")
                }
                await KeychainLibrary.closeConnection(for: configuration)
                await client.close()
                await harness.stop()
                return outcome
            }
        }

        @Test("an accepted unlock prompt lets the read succeed")
        func acceptedPrompt() async throws {
            #expect(try await readAfterLocking(pinentryAnswers: nil) == (errSecSuccess, "behind a prompt"))
        }

        @Test("a dismissed unlock prompt is errSecUserCanceled")
        func dismissedPrompt() async throws {
            #expect(try await readAfterLocking(pinentryAnswers: ["CANCEL"]).0 == errSecUserCanceled)
        }
    }
}

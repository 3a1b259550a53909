// SPDX-License-Identifier: Apache-2.0
// Prompts with cofferd's scripted pinentry: an accepted unlock reads the item, a dismissed one is -128, a missing
// default collection whose creation is dismissed is -25307.

import Foundation
import CofferKeychain
import SecretServiceClient
import SecretServiceTestSupport
import Testing

extension KeychainSuites {
    /// Mostly cofferd only, with its scripted pinentry: headless gnome-keyring has no prompter, so a dialogue can
    /// never be accepted there; its prompts end dismissed at once, which the last test uses.
    @Suite("Prompts")
    struct PromptTests {
        /// Runs `body` against cofferd started with `options`, the library bound to its bus.
        private func withPromptingDaemon<T>(
            _ options: DaemonHarness.SubprocessOptions, _ body: (DaemonHarness, SecretService) async throws -> T
        ) async throws -> T {
            try await TestBus.withPrivateBus { bus in
                let harness = try await DaemonHarness.start(on: bus, options: options)
                let configuration = KeychainConfiguration(busAddress: bus.address, accessGroup: testGroup,
                                                          lockDirectory: bus.directory.path)
                let outcome: Result<T, any Error>
                do {
                    let client = try await SecretService.connect(address: bus.address)
                    do {
                        outcome = .success(try await KeychainConfiguration.withConfiguration(configuration) {
                            try await body(harness, client)
                        })
                    } catch {
                        outcome = .failure(error)
                    }
                    await client.close()
                } catch {
                    outcome = .failure(error)
                }
                await KeychainLibrary.closeConnection(for: configuration)
                await harness.stop()
                return try outcome.get()
            }
        }

        /// Adds an item, locks the default collection, then reads the item with prompts allowed.
        private func readAfterLocking(pinentryAnswers: [String]?) async throws -> (OSStatus, String?) {
            try await withPromptingDaemon(.init(pinentryAnswers: pinentryAnswers)) { _, client in
                #expect(addGenericPassword(service: "prompted", account: "a", password: "behind a prompt")
                        == errSecSuccess)
                try await client.lock([try await client.defaultCollection()])
                return readGenericPassword(service: "prompted", account: "a")
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

        @Test("gnome-keyring without a prompter dismisses the unlock prompt: errSecUserCanceled, never a hang")
        func gnomeKeyringDismisses() async throws {
            try await withKeychain(.gnomeKeyring) { _, _, client in
                #expect(addGenericPassword(service: "prompted", account: "a", password: "p") == errSecSuccess)
                try await client.lock([try await client.defaultCollection()])
                #expect(readGenericPassword(service: "prompted", account: "a").0 == errSecUserCanceled)
                #expect(addGenericPassword(service: "prompted", account: "b", password: "p") == errSecUserCanceled)
            }
        }

        @Test("no default collection: UI fail never prompts, a dismissed creation prompt is errSecNoDefaultKeychain")
        func noDefaultKeychain() async throws {
            // Without --unlock and with collection files kept, cofferd has no `default` alias until one is created.
            try await withPromptingDaemon(.init(loginPassword: nil, pinentryAnswers: ["CANCEL", "CANCEL"])) {
                harness, client in
                let aliasBefore = try await client.collection(alias: "default")
                #expect(aliasBefore == nil)
                let noUI = [kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail]
                #expect(addGenericPassword(service: "s", account: "a", password: "p", extra: noUI)
                        == errSecNoDefaultKeychain)
                #expect(!harness.pinentryCommands.contains("GETPIN"))
                #expect(addGenericPassword(service: "s", account: "a", password: "p") == errSecNoDefaultKeychain)
                #expect(harness.pinentryCommands.contains("GETPIN"))
                let aliasAfter = try await client.collection(alias: "default")
                #expect(aliasAfter == nil)
            }
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Unlocking a password-protected collection: several requests share one dialogue; three wrong passwords dismiss.

import DBusWire
import Foundation
import SecretCrypto
import SecretServiceDaemon
import SecretServiceProtocol
import SecretStore
import Testing

@Suite("Unlock dialogues")
struct SharedUnlockTests {
    /// A router over a scratch data directory holding one locked collection `vault` with password `pw`.
    static func lockedVault(_ prompter: ScriptedPasswordPrompter, in directory: String) async throws -> RouterHarness {
        let h = try await RouterHarness(prompter: prompter, dataDirectory: directory)
        _ = try await h.store.createCollection(label: "Vault", alias: "", password: try SecretBytes(copying: Array("pw".utf8)),
                                               preferredID: "vault")
        try await h.store.setLocked("vault", true)
        return h
    }

    @Test("two clients unlocking the same collection at once get one password dialogue")
    func concurrentUnlocksShareOneDialogue() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let prompter = ScriptedPasswordPrompter(answers: ["pw"])
        let h = try await Self.lockedVault(prompter, in: directory)
        let vault: ObjectPath = "/org/freedesktop/secrets/collection/vault"
        let first = try #require(try await h.ok(service, nil, "Unlock", [.objectPaths([vault])])[1].objectPath)
        let second = try #require(try await h.ok(service, nil, "Unlock", [.objectPaths([vault])],
                                                 from: RouterHarness.second)[1].objectPath)
        async let a = h.ok(first, nil, "Prompt", [.string("")])
        async let b = h.ok(second, nil, "Prompt", [.string("")], from: RouterHarness.second)
        _ = try await (a, b)
        for prompt in [first, second] {
            let completed = await h.sender.waitForMessage { $0.member == "Completed" && $0.path == prompt }
            #expect(completed.body == [.boolean(false), .variant(.objectPaths([vault]))])
        }
        #expect(prompter.questions.count == 1, "\(prompter.questions)")
        #expect(try await h.store.collectionInfo("vault").isLocked == false)
    }

    @Test("three wrong passwords dismiss the prompt and leave the collection locked")
    func threeWrongPasswords() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let prompter = ScriptedPasswordPrompter(answers: ["a", "b", "c", "pw"])
        let h = try await Self.lockedVault(prompter, in: directory)
        let vault: ObjectPath = "/org/freedesktop/secrets/collection/vault"
        let prompt = try #require(try await h.ok(service, nil, "Unlock", [.objectPaths([vault])])[1].objectPath)
        _ = try await h.ok(prompt, nil, "Prompt", [.string("")])
        let completed = await h.sender.waitForMessage { $0.member == "Completed" && $0.path == prompt }
        #expect(completed.body == [.boolean(true), .variant(.objectPaths([]))])
        #expect(prompter.questions.count == 3)
        #expect(try await h.store.collectionInfo("vault").isLocked)
    }
}

// SPDX-License-Identifier: Apache-2.0
// Locking and unlocking through our client: search splits, IsLocked, and unlock prompts.

import DBusWire
import SecretCrypto
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

@Suite("Client against cofferd: locking and prompts", .timeLimit(.minutes(2)))
struct LockingTests {
    @Test("a locked collection's items are reported locked and unreadable until a prompt unlocks them")
    func lockAndUnlock() async throws {
        try await DaemonHarness.withDaemon { _, _, client in
            let collection = try await client.defaultCollection()
            let item = try await client.createItem(
                in: collection, label: "lockable", attributes: ["lock": "test"], secret: secret("behind a lock"),
                replace: false)

            let locked = try await client.lock([collection])
            #expect(locked == [collection])
            #expect(try await client.collectionProperties(collection).locked)
            #expect(try await client.itemProperties(item).locked)

            let found = try await client.searchItems(["lock": "test"])
            #expect(found.unlocked.isEmpty)
            #expect(found.locked == [item])

            let error = await #expect(throws: SecretServiceError.self) { try await client.secret(of: item) }
            #expect(errorName(error) == SecretErrorNames.isLocked)
            #expect(try await client.secrets(of: [item]).isEmpty)  // locked items are left out, not an error

            // cofferd's default prompter approves unlocking in-memory collections.
            let (immediate, prompt) = try await client.service.unlock([collection])
            #expect(immediate.isEmpty)
            #expect(prompt != .root)
            let result = try await client.runPrompt(prompt)
            #expect(result == .completed(.objectPaths([collection])))

            #expect(try await client.secret(of: item).text == "behind a lock")
            #expect(try await client.searchItems(["lock": "test"]).unlocked == [item])
            #expect(try await client.collectionProperties(collection).locked == false)
            // Unlocking what is unlocked needs no prompt.
            #expect(try await client.unlock([collection]) == [collection])
        }
    }

    @Test("creating an item in a locked collection fails with IsLocked; the convenience unlock then lets it through")
    func createItemInLockedCollection() async throws {
        try await DaemonHarness.withDaemon { _, _, client in
            let collection = try await client.defaultCollection()
            try await client.lock([collection])
            let error = await #expect(throws: SecretServiceError.self) {
                _ = try await client.createItem(in: collection, label: "x", attributes: ["a": "b"],
                                                secret: secret("x"), replace: false)
            }
            #expect(errorName(error) == SecretErrorNames.isLocked)
            #expect(try await client.unlock([collection]) == [collection])
            _ = try await client.createItem(in: collection, label: "x", attributes: ["a": "b"], secret: secret("x"),
                                            replace: false)
        }
    }

    @Test("unlocking an item unlocks it through the prompt")
    func unlockItem() async throws {
        try await DaemonHarness.withDaemon { _, _, client in
            let collection = try await client.defaultCollection()
            let item = try await client.createItem(in: collection, label: "i", attributes: ["i": "1"],
                                                   secret: secret("v"), replace: false)
            try await client.lock([item])
            #expect(try await client.itemProperties(item).locked)
            #expect(try await client.unlock([item]) == [item])
            #expect(try await client.secret(of: item).text == "v")
        }
    }

    @Test("runPrompt on / returns at once")
    func noPrompt() async throws {
        try await DaemonHarness.withDaemon { (_, _, client) async throws in
            #expect(try await client.runPrompt(.root) == .notNeeded)
        }
    }
}

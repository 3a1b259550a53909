// SPDX-License-Identifier: Apache-2.0
// Prompts: Completed exactly once, to the owner; Dismiss before, during and after completion; per-client ownership.

import DBusWire
import SecretServiceDaemon
import SecretServiceProtocol
import SecretStore
import Testing

/// A prompter that waits until the test lets it answer, so a test can act while a prompt is showing.
actor GatedPrompter: Prompter {
    private var shown: [CheckedContinuation<Void, Never>] = []
    private var showing = false
    private var answer: CheckedContinuation<Bool, Never>?

    func approve(_ request: PromptRequest) async -> Bool {
        showing = true
        for waiter in shown { waiter.resume() }
        shown = []
        return await withTaskCancellationHandler {
            await withCheckedContinuation { answer = $0 }
        } onCancel: {
            Task { await self.answer(false) }
        }
    }

    /// Waits until a prompt is showing.
    func waitUntilShown() async {
        if showing { return }
        await withCheckedContinuation { shown.append($0) }
    }

    /// Answers the showing prompt.
    func answer(_ value: Bool) {
        answer?.resume(returning: value)
        answer = nil
    }
}

@Suite("Prompts")
struct PromptTests {
    /// Locks the session collection and asks to unlock it; returns the prompt path.
    func lockedUnlockPrompt(_ h: RouterHarness, caller: BusName = RouterHarness.first) async throws -> ObjectPath {
        _ = try await h.ok(service, nil, "Lock", [.objectPaths([defaultAlias])], from: caller)
        let reply = try await h.ok(service, nil, "Unlock", [.objectPaths([defaultAlias])], from: caller)
        #expect(reply[0] == .objectPaths([]))
        let prompt = try #require(reply[1].objectPath)
        #expect(prompt != .root)
        return prompt
    }

    func completions(_ h: RouterHarness, _ prompt: ObjectPath) async -> [Message] {
        await h.signals("Completed").filter { $0.path == prompt }
    }

    @Test("an approved prompt unlocks and completes once, to its owner, with the unlocked paths")
    func approved() async throws {
        let h = try await RouterHarness()
        let prompt = try await lockedUnlockPrompt(h)
        #expect(try await h.ok(prompt, nil, "Prompt", [.string("")]) == [])
        let completed = await h.sender.waitForMessage { $0.member == "Completed" }
        #expect(completed.destination == RouterHarness.first && completed.path == prompt)
        #expect(completed.body == [.boolean(false), .variant(.objectPaths([defaultAlias]))])
        let locked = try await h.ok(defaultAlias, SecretServiceNames.propertiesInterface, "Get",
                                    [.string("org.freedesktop.Secret.Collection"), .string("Locked")])
        #expect(locked == [.variant(.boolean(false))])
        #expect(try await h.ok(prompt, nil, "Dismiss") == [], "a late Dismiss is a no-op")
        #expect(await h.errorName(prompt, nil, "Prompt", [.string("")]) == "org.freedesktop.Secret.Error.NoSuchObject")
        #expect(await completions(h, prompt).count == 1)
    }

    @Test("a prompt the user dismisses completes dismissed and leaves the collection locked")
    func dismissedByUser() async throws {
        let h = try await RouterHarness(prompter: FixedPrompter.autoDismiss)
        let prompt = try await lockedUnlockPrompt(h)
        _ = try await h.ok(prompt, nil, "Prompt", [.string("window:1")])
        let completed = await h.sender.waitForMessage { $0.member == "Completed" }
        #expect(completed.body == [.boolean(true), .variant(.objectPaths([]))])
        let info = try await h.store.collectionInfo("session")
        #expect(info.isLocked)
    }

    @Test("Dismiss before Prompt, and while the prompt shows, completes dismissed exactly once")
    func dismissedByClient() async throws {
        let gate = GatedPrompter()
        let h = try await RouterHarness(prompter: gate)
        let early = try await lockedUnlockPrompt(h)
        _ = try await h.ok(early, nil, "Dismiss")
        #expect(await completions(h, early).map(\.body) == [[.boolean(true), .variant(.objectPaths([]))]])

        let showing = try await lockedUnlockPrompt(h)
        let runner = Task { try await h.ok(showing, nil, "Prompt", [.string("")]) }
        await gate.waitUntilShown()
        _ = try await h.ok(showing, nil, "Dismiss")
        _ = try await runner.value
        #expect(await completions(h, showing).map(\.body) == [[.boolean(true), .variant(.objectPaths([]))]])
        #expect(try await h.store.collectionInfo("session").isLocked)
    }

    @Test("prompts belong to their caller and vanish with it")
    func ownership() async throws {
        let h = try await RouterHarness()
        let prompt = try await lockedUnlockPrompt(h)
        #expect(await h.errorName(prompt, nil, "Prompt", [.string("")], from: RouterHarness.second)
            == "org.freedesktop.Secret.Error.NoSuchObject")
        #expect(await h.errorName(prompt, nil, "Dismiss", from: RouterHarness.second)
            == "org.freedesktop.Secret.Error.NoSuchObject")
        await h.router.clientVanished(RouterHarness.first)
        #expect(await h.errorName(prompt, nil, "Prompt", [.string("")])
            == "org.freedesktop.Secret.Error.NoSuchObject")
        #expect(await completions(h, prompt).isEmpty)
    }

    @Test("Unlock of objects already unlocked needs no prompt; Lock needs none either")
    func noPromptNeeded() async throws {
        let h = try await RouterHarness()
        let reply = try await h.ok(service, nil, "Unlock", [.objectPaths([defaultAlias, "/org/x/unknown"])])
        #expect(reply == [.objectPaths([defaultAlias]), .objectPath(.root)])
        let locked = try await h.ok(service, nil, "Lock", [.objectPaths([defaultAlias])])
        #expect(locked == [.objectPaths([defaultAlias]), .objectPath(.root)])
    }
}

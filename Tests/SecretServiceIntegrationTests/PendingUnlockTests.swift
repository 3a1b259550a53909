// SPDX-License-Identifier: Apache-2.0
// A pending unlock belongs to the client that asked: another client can neither drive it nor end it.

import DBusWire
import SecretServiceClient
import SecretServiceDaemon
import SecretServiceProtocol
import SecretServiceTestSupport
import Synchronization
import Testing

/// A prompter whose dialogue stays open until the test answers it, and which reports being asked and being closed.
private final class GatedPrompter: Prompter {
    let asked: AsyncStream<Void>
    private let askedSink: AsyncStream<Void>.Continuation
    private let answers: AsyncStream<Bool>
    private let answerSink: AsyncStream<Bool>.Continuation
    private let cancellations = Atomic(0)

    init() {
        (asked, askedSink) = AsyncStream.makeStream()
        (answers, answerSink) = AsyncStream.makeStream()
    }

    /// How many dialogues were closed because nobody waited for them any more.
    var cancelled: Int { cancellations.load(ordering: .sequentiallyConsistent) }

    func answer(_ approve: Bool) { answerSink.yield(approve) }

    func approve(_ request: PromptRequest) async -> Bool {
        askedSink.yield()
        for await answer in answers { return answer }
        cancellations.add(1, ordering: .sequentiallyConsistent)
        return false
    }
}

@Suite("Pending unlocks are bound to their caller", .timeLimit(.minutes(2)))
struct PendingUnlockTests {
    @Test("another client can neither show nor dismiss a pending unlock, and giving up its own leaves the owner's running")
    func pendingUnlockBelongsToItsCaller() async throws {
        let prompter = GatedPrompter()
        try await DaemonHarness.withDaemon(.inProcess(prompter: prompter)) { bus, _, owner in
            let collection = try await owner.defaultCollection()
            try await owner.lock([collection])
            let other = try await SecretService.connect(address: bus.address)

            // The owner's unlock dialogue is showing.
            let (_, ownersPrompt) = try await owner.service.unlock([collection])
            let ownersRun = Task { try await owner.runPrompt(ownersPrompt) }
            var asked = prompter.asked.makeAsyncIterator()
            #expect(await asked.next() != nil)

            // Another client cannot drive or end it: to it, the prompt does not exist.
            let foreign = PromptProxy(connection: other.connection, path: ownersPrompt)
            let shown = await #expect(throws: SecretServiceError.self) { try await foreign.prompt() }
            #expect(errorName(shown) == SecretErrorNames.noSuchObject)
            let dismissed = await #expect(throws: SecretServiceError.self) { try await foreign.dismiss() }
            #expect(errorName(dismissed) == SecretErrorNames.noSuchObject)

            // The other client asks to unlock the same collection (it shares the dialogue), then gives up on its
            // own prompt: that ends its prompt only, not the owner's pending unlock.
            let (_, othersPrompt) = try await other.service.unlock([collection])
            #expect(othersPrompt != ownersPrompt)
            let othersCompletion = try await other.subscribe(to: [.promptCompleted(othersPrompt)])
            let othersProxy = PromptProxy(connection: other.connection, path: othersPrompt)
            try await othersProxy.prompt()
            try await othersProxy.dismiss()
            let othersEnd = try await nextSignal(othersCompletion, "the other client's prompt completing dismissed")
            #expect(othersEnd.body.first == .boolean(true))
            #expect(prompter.cancelled == 0, "the other client's dismissal closed the owner's dialogue")

            // The user answers: the owner's unlock completes, unlocked.
            prompter.answer(true)
            #expect(try await ownersRun.value == .completed(.objectPaths([collection])))
            #expect(try await owner.collectionProperties(collection).locked == false)
            await othersCompletion.cancel()
            await other.close()
        }
    }
}

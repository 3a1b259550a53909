// SPDX-License-Identifier: Apache-2.0
// Prompt outcomes that need a scripted prompter: dismissal, cancellation, and the provider vanishing.

import DBusWire
import SecretServiceClient
import SecretServiceDaemon
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

/// A prompter that never answers until its task is cancelled, and reports each time it is asked.
private struct StalledPrompter: Prompter {
    let asked: AsyncStream<PromptRequest>
    private let askedSink: AsyncStream<PromptRequest>.Continuation

    init() { (asked, askedSink) = AsyncStream.makeStream() }

    func approve(_ request: PromptRequest) async -> Bool {
        askedSink.yield(request)
        let (never, keepOpen) = AsyncStream.makeStream(of: Void.self)
        for await _ in never {}  // ends only when the prompt's task is cancelled
        keepOpen.finish()
        return false
    }
}

@Suite("Prompts with a scripted prompter", .timeLimit(.minutes(2)))
struct PromptTests {
    @Test("a dismissed unlock prompt surfaces as .dismissed")
    func dismissedUnlock() async throws {
        try await DaemonHarness.withDaemon(.inProcess(prompter: FixedPrompter.autoDismiss)) { _, _, client in
            let collection = try await client.defaultCollection()
            try await client.lock([collection])
            await #expect(throws: SecretServiceClientError.dismissed) { try await client.unlock([collection]) }
            #expect(try await client.collectionProperties(collection).locked)
        }
    }

    @Test("cancelling runPrompt dismisses the prompt")
    func cancellationDismisses() async throws {
        let prompter = StalledPrompter()
        try await DaemonHarness.withDaemon(.inProcess(prompter: prompter)) { _, _, client in
            let collection = try await client.defaultCollection()
            try await client.lock([collection])
            let (_, prompt) = try await client.service.unlock([collection])
            let completions = try await client.subscribe(to: [.promptCompleted(prompt)])
            let running = Task { try await client.runPrompt(prompt) }
            var asked = prompter.asked.makeAsyncIterator()
            #expect(await asked.next() != nil)  // the prompt is showing
            running.cancel()
            await #expect(throws: CancellationError.self) { _ = try await running.value }

            // Dismiss() reached the daemon: it announces Completed(dismissed: true), and nothing was unlocked.
            let completed = try await nextSignal(completions, "Completed after Dismiss()")
            #expect(completed.body.first == .boolean(true))
            let again = await #expect(throws: SecretServiceError.self) {
                try await PromptProxy(connection: client.connection, path: prompt).prompt()
            }
            #expect(errorName(again) == SecretErrorNames.noSuchObject)
            try await PromptProxy(connection: client.connection, path: prompt).dismiss()  // late Dismiss: a no-op
            #expect(try await client.collectionProperties(collection).locked)
        }
    }

    @Test("graceful shutdown finishes while a prompt is still showing")
    func shutdownWithPendingPrompt() async throws {
        let prompter = StalledPrompter()
        try await DaemonHarness.withDaemon(.inProcess(prompter: prompter)) { _, harness, client in
            let collection = try await client.defaultCollection()
            try await client.lock([collection])
            let running = Task { try await client.unlock([collection]) }
            var asked = prompter.asked.makeAsyncIterator()
            #expect(await asked.next() != nil)
            let exit = await harness.stop()
            #expect(exit == .exited(0), "log:\n\(harness.log())")
            // The daemon dismisses prompts still showing before it exits, so the client hears `Completed(true)`.
            let outcome: SecretServiceClientError? = await {
                do {
                    _ = try await running.value
                    return nil
                } catch let error as SecretServiceClientError {
                    return error
                } catch {
                    return nil
                }
            }()
            #expect(outcome == .dismissed)
        }
    }
}

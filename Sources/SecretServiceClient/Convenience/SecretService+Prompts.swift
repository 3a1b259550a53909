// SPDX-License-Identifier: Apache-2.0
// Running a prompt to its end: subscribe to Completed, call Prompt(), wait, and dismiss on cancellation.

public import DBusWire
import DBusTransport
import SecretServiceProtocol

extension SecretService {
    /// Runs the prompt at `path` and waits for its `Completed` signal.
    ///
    /// The order is the one that cannot lose the signal: subscribe to `Completed` on that path (and to
    /// `NameOwnerChanged` for the provider's name), then call `Prompt()`, then wait. Nothing is polled. When the
    /// calling task is cancelled the prompt is dismissed (`Dismiss()`, without waiting for the reply) and
    /// `CancellationError` is thrown.
    /// - Parameters:
    ///   - path: the prompt an operation returned; `/` means there is none.
    ///   - windowID: the platform window to attach the prompt to, or `""`.
    /// - Returns: ``PromptResult/notNeeded`` for `/`, otherwise dismissed or the completion's result.
    /// - Throws: ``SecretServiceClientError/providerVanished`` when the provider leaves the bus meanwhile,
    ///   ``SecretServiceClientError/transport(_:)`` when the connection closes, `CancellationError`, or the errors
    ///   of `Prompt()` itself.
    public func runPrompt(_ path: ObjectPath, windowID: String = "") async throws -> PromptResult {
        guard path != .root else { return .notNeeded }
        let completed = SignalFilter.promptCompleted(path)
        let ownerChanges = SignalFilter.nameOwnerChanged(destination)
        let subscription = try await subscribe(to: [completed, ownerChanges])
        do {
            let result = try await waitForCompletion(
                of: PromptProxy(connection: connection, path: path, destination: destination), windowID: windowID,
                subscription: subscription, completed: completed, ownerChanges: ownerChanges)
            await subscription.cancel()
            return result
        } catch {
            await subscription.cancel()
            throw error
        }
    }

    private func waitForCompletion(of prompt: PromptProxy, windowID: String, subscription: SignalSubscription,
                                   completed: SignalFilter, ownerChanges: SignalFilter) async throws -> PromptResult {
        let provider: BusName?
        do {
            provider = try await prompt.prompt(windowID: windowID)
        } catch is CancellationError {
            try? await prompt.dismissWithoutReply()
            throw CancellationError()
        } catch SecretServiceError.failed(let reason) {
            // A provider that cannot ask anyone says why in the error (cofferd: no display or terminal, and what to
            // run instead); the operation then fails with that reason rather than as a provider failure.
            throw SecretServiceClientError.promptNotShown(reason)
        }
        var signals = subscription.makeAsyncIterator()
        while let signal = await signals.next() {  // `nil` when the connection closes or the task is cancelled
            if completed.matches(signal) {
                if let provider, let sender = signal.sender, sender != provider { continue }  // not from the provider
                return try Self.promptResult(from: signal)
            }
            if ownerChanges.matches(signal), Self.providerLeft(signal, provider: provider) {
                throw SecretServiceClientError.providerVanished
            }
        }
        if Task.isCancelled {
            try? await prompt.dismissWithoutReply()
            throw CancellationError()
        }
        throw SecretServiceClientError.transport("the connection closed while waiting for a prompt")
    }

    /// Reads `Completed(b dismissed, v result)`.
    static func promptResult(from signal: Message) throws -> PromptResult {
        guard signal.body.count == 2, let dismissed = signal.body[0].bool, let result = signal.body[1].variantValue
        else {
            throw SecretServiceClientError.unexpectedReply("Completed has signature '\(signal.signature)', expected 'bv'")
        }
        return dismissed ? .dismissed : .completed(result)
    }

    /// Whether `NameOwnerChanged(name, old, new)` means the provider we talk to is gone (no new owner, or the
    /// name moved away from the provider that owns the prompt).
    static func providerLeft(_ signal: Message, provider: BusName?) -> Bool {
        guard signal.body.count == 3, let old = signal.body[1].string, let new = signal.body[2].string else {
            return false
        }
        if new.isEmpty { return true }
        if let provider { return old == provider.rawValue && new != provider.rawValue }
        return false
    }
}

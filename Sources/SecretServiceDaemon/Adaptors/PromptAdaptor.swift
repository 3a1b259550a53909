// org.freedesktop.Secret.Prompt
// SPDX-License-Identifier: Apache-2.0
// A prompt object: showing it, dismissing it, and announcing its completion exactly once.

#if canImport(Glibc)
import Glibc
#endif
import DBusWire
import Logging
import SecretServiceProtocol

/// Serves `org.freedesktop.Secret.Prompt`. `Prompt()` answers at once and runs the prompt after the reply;
/// `Completed` goes to the owning client only, exactly once, whichever of completion and `Dismiss()` comes first.
struct PromptAdaptor {
    let context: DaemonContext

    static let interface = ServedInterface(
        SecretServiceNames.promptInterface, adaptor: PromptAdaptor.init,
        methods: [
            AdaptorMethod("Prompt", in: [.init("window-id", .string)]) { adaptor, call in
                switch call.node {
                case .prompt(let id): return try await adaptor.prompt(id, windowID: call.args.string(0),
                                                                      caller: call.caller)
                default: throw SecretServiceError.noSuchObject("the prompt has already completed")
                }
            },
            AdaptorMethod("Dismiss") { adaptor, call in
                // A finished prompt lost the race with completion: nothing is left to dismiss.
                if case .prompt(let id) = call.node { await adaptor.complete(id, result: nil) }
                return HandlerResult()
            },
        ],
        signals: [SignalDescription("Completed", [.init("dismissed", .boolean), .init("result", .variant)])])

    /// `Prompt(s window-id)`: shows the prompt, or refuses it when no prompt can be shown where the user is.
    private func prompt(_ id: String, windowID: String, caller: BusName) async -> HandlerResult {
        guard let work = await context.clients.begin(id, caller: caller) else {
            return HandlerResult()  // already showing: a second Prompt() changes nothing
        }
        if let reason = await context.prompter.unavailability() {
            await work.unasked?()
            return await refuse(id, caller: caller, reason: work.question.reason(reason))
        }
        return HandlerResult { await run(id, work: work, windowID: windowID) }
    }

    /// Runs the prompt's work until it finishes or the prompt is dismissed, whichever is first. Finishing releases
    /// the dismissal waiter (the registry resumes it), and a dismissal cancels the work; the registry announces
    /// only the first of the two.
    private func run(_ id: String, work: PromptWork, windowID: String) async {
        let clients = context.clients
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                let outcome = await work.run(windowID)
                await complete(id, result: outcome)
            }
            group.addTask { await clients.waitForDismissal(of: id) }
            await group.next()
            group.cancelAll()
        }
    }

    /// A prompt nobody can be asked: the `Prompt()` call fails with the reason, which libsecret and `coffer` print,
    /// and `Completed(dismissed)` follows for clients that only wait for the signal. The error goes first: libsecret
    /// finishes the operation with whichever arrives first and must not see both.
    private func refuse(_ id: String, caller: BusName, reason: String) async -> HandlerResult {
        await context.clients.recordFailedPrompt(
            FailedPrompt(time: UInt64(max(0, time(nil))), caller: caller, reason: reason))
        context.logger.notice("a prompt cannot be shown; it is dismissed",
                              metadata: ["dbus.sender": "\(caller.rawValue)", "reason": "\(reason)"])
        return HandlerResult(error: .failed(reason)) { await complete(id, result: nil) }
    }

    private func complete(_ id: String, result: DBusValue?) async {
        guard let (owner, completion) = await context.clients.finish(id, result: result) else { return }
        await context.emit(SecretServiceNames.promptInterface, "Completed", from: Paths.prompt(id),
                           [.boolean(completion.dismissed), .variant(completion.result)], to: owner)
    }
}

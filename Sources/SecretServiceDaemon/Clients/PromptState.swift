// SPDX-License-Identifier: Apache-2.0
// One prompt's life: waiting for Prompt(), running, then completed exactly once.

import DBusWire

/// What a prompt does once the client calls `Prompt()`: it asks the prompter and returns the `Completed` result,
/// or `nil` when dismissed.
struct PromptWork: Sendable {
    /// The `Completed` result a dismissed prompt reports, typed as clients expect for this operation.
    var emptyResult: DBusValue
    /// What the user would be asked, which decides what a client is told when nobody can be asked.
    var question: PromptQuestion
    var run: @Sendable (_ windowID: String) async -> DBusValue?
    /// Runs instead of ``run`` when nobody can be asked (the prompt is refused before it starts): records what the
    /// caller was refused without a question, which the access log must show like any other refusal.
    var unasked: (@Sendable () async -> Void)?
}

/// A prompt's state inside the registry.
struct PromptState: Sendable {
    enum Phase: Sendable {
        case waiting
        case running
        case completed
    }

    var id: String
    var owner: BusName
    var work: PromptWork
    var phase: Phase = .waiting
    /// Resumed when the prompt is dismissed while running, so the runner stops waiting for the user.
    var dismissal: CheckedContinuation<Void, Never>?
}

/// The result of a prompt, as the `Completed(b dismissed, v result)` signal carries it.
struct PromptCompletion: Sendable, Hashable {
    var dismissed: Bool
    var result: DBusValue
}

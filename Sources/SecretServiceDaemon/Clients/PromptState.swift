// SPDX-License-Identifier: Apache-2.0
// One prompt's life: waiting for Prompt(), running, then completed exactly once.

import DBusWire

/// What a prompt does once the client calls `Prompt()`: it asks the prompter and returns the `Completed` result,
/// or `nil` when dismissed.
struct PromptWork: Sendable {
    /// The `Completed` result a dismissed prompt reports, typed as clients expect for this operation.
    var emptyResult: DBusValue
    var run: @Sendable (_ windowID: String) async -> DBusValue?
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

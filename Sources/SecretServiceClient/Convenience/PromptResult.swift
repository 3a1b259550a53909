// SPDX-License-Identifier: Apache-2.0
// How a prompt ended, as its Completed signal reported it.

public import DBusWire

/// The outcome of ``SecretService/runPrompt(_:windowID:)``.
public enum PromptResult: Sendable, Hashable {
    /// The path was `/`: the operation needed no prompt.
    case notNeeded
    /// The user (or ``SecretService/runPrompt(_:windowID:)``'s cancellation) dismissed the prompt.
    case dismissed
    /// The prompt completed; the value is the content of `Completed`'s `v result` (`o` after creating, `ao` after
    /// unlocking or locking).
    case completed(DBusValue)
}

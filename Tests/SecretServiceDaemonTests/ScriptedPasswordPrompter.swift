// SPDX-License-Identifier: Apache-2.0
// A password prompter that answers from a prepared queue and records what it was asked, for tests.

import SecretCrypto
import SecretServiceDaemon
import Synchronization

/// A ``PasswordPrompter`` for tests: answers from queues prepared in advance, asks nobody, and records every
/// question.
///
/// An exhausted queue dismisses, as does a cancelled task.
final class ScriptedPasswordPrompter: PasswordPrompter {
    /// One question the prompter was asked.
    enum Question: Sendable, Hashable {
        /// ``approve(_:)``.
        case approval(PromptRequest)
        /// ``password(for:)``.
        case password(PasswordRequest)
        /// ``newPassword(for:)``.
        case newPassword(PasswordRequest)
    }

    private struct State {
        var answers: [String?]
        var approvals: [Bool]
        var questions: [Question] = []
    }

    private let state: Mutex<State>

    /// Creates a prompter.
    /// - Parameters:
    ///   - answers: The answers to ``password(for:)`` and ``newPassword(for:)`` in the order they are asked;
    ///     `nil` dismisses that prompt.
    ///   - approvals: The answers to ``approve(_:)`` in order.
    init(answers: [String?], approvals: [Bool] = []) {
        state = Mutex(State(answers: answers, approvals: approvals))
    }

    /// The questions asked so far, oldest first.
    var questions: [Question] { state.withLock { $0.questions } }

    /// Pops the next approval; `false` when there is none left or the task is cancelled.
    func approve(_ request: PromptRequest) async -> Bool {
        state.withLock { state in
            state.questions.append(.approval(request))
            return state.approvals.isEmpty ? false : state.approvals.removeFirst()
        } && !Task.isCancelled
    }

    /// Pops the next answer; `nil` when it is `nil`, there is none left, or the task is cancelled.
    func password(for request: PasswordRequest) async -> SecretBytes? {
        answer(.password(request))
    }

    /// Pops the next answer; `nil` when it is `nil`, there is none left, or the task is cancelled.
    func newPassword(for request: PasswordRequest) async -> SecretBytes? {
        answer(.newPassword(request))
    }

    private func answer(_ question: Question) -> SecretBytes? {
        let text = state.withLock { state -> String? in
            state.questions.append(question)
            return state.answers.isEmpty ? nil : state.answers.removeFirst()
        }
        guard let text, !Task.isCancelled else { return nil }
        return try? SecretBytes(copying: Array(text.utf8))
    }
}

// SPDX-License-Identifier: Apache-2.0
// What a prompt asks, and so what a client is told to do instead when nobody can be asked.

import SecretServiceProtocol
import SecretStore

/// Why a prompter cannot reach the user right now.
public enum PromptUnavailability: Sendable, Equatable {
    /// No display and no terminal to show a prompt on: what to do instead depends on the question.
    case noDisplayOrTerminal
    /// Anything else, in words a client can show (a pinentry program that is not installed).
    case other(String)
}

/// What a prompt asks the user.
enum PromptQuestion: Sendable, Equatable {
    /// A collection's password, to unlock it; `nil` for the default collection, which `coffer unlock-keychain`
    /// unlocks (or, in a fresh account, creates as `login`).
    case unlock(collection: String?)
    /// A password for a new collection, to have the label given.
    case create(label: String)
    /// A collection's current password and a new one.
    case change(collection: String)
    /// Whether an application may use items another application stored (docs/ACCESS-CONTROL.md).
    case consent

    /// The reason a client is given when `unavailable` keeps the prompt from being shown: with no display and no
    /// terminal, the `coffer` command that gets the same done from a terminal, or the agent that can ask there.
    func reason(_ unavailable: PromptUnavailability) -> String {
        if case .other(let text) = unavailable { return text }
        let nowhere = "no display or terminal"
        switch self {
        case .unlock(nil):
            return "cannot ask for the password: \(nowhere); run `coffer unlock-keychain` or `coffer prompt-agent`"
        case .unlock(let collection?):
            return "cannot ask for the password: \(nowhere); run `coffer unlock-keychain \(Self.shellWord(collection))`"
                + " or `coffer prompt-agent`"
        case .create(let label):
            return "cannot ask for the new keychain's password: \(nowhere); run `coffer create-keychain "
                + "\(Self.shellWord(label))` or `coffer prompt-agent`"
        case .change(let collection):
            return "cannot ask for the passwords: \(nowhere); run `coffer set-keychain-password "
                + "\(Self.shellWord(collection))` or `coffer prompt-agent`"
        case .consent:
            return "cannot ask whether to allow this application: \(nowhere); run `coffer prompt-agent` in a "
                + "terminal, then try again"
        }
    }

    /// `text` as one shell word: as it is when it has nothing a shell would split or expand, else single-quoted.
    static func shellWord(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                || "._-/+:@".unicodeScalars.contains($0)
        }
        return plain ? text : "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}

extension DaemonContext {
    /// The question of a prompt that unlocks `collections`: it names the collection when there is one and it is not
    /// the default, which `coffer unlock-keychain` unlocks without a name.
    func unlockQuestion(for collections: [String]) async -> PromptQuestion {
        let distinct = Set(collections)
        guard distinct.count == 1, let only = distinct.first,
              await store.resolveAlias(SecretServiceNames.defaultAlias) != only
        else { return .unlock(collection: nil) }
        return .unlock(collection: only)
    }
}

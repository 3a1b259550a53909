// SPDX-License-Identifier: Apache-2.0
// The dialogue that unlocks one collection: a password with up to three tries, or a plain approval.

import DBusWire
import Logging
import SecretStore

/// Unlocks one collection for a prompt. Password-protected collections ask for the password through the
/// prompter, re-asking with an error text after a wrong one, up to ``attempts`` times; in-memory collections have no
/// password and only need the user's approval.
struct UnlockFlow {
    let context: DaemonContext
    static let attempts = 3

    /// - Returns: whether the collection is unlocked afterwards.
    func run(_ collection: String, windowID: String, caller: BusName) async -> Bool {
        guard let info = try? await context.store.collectionInfo(collection, countingItemTimes: false) else { return false }
        guard info.isLocked else { return true }
        guard (try? await context.store.needsPassword(collection)) == true else {
            let request = PromptRequest(kind: .unlock(collectionLabel: info.label), windowID: windowID, caller: caller)
            guard await context.prompter.approve(request), !Task.isCancelled else { return false }
            return (try? await context.store.setLocked(collection, false)) != nil
        }
        guard let prompter = context.prompter as? any PasswordPrompter else {
            context.logger.notice("no password prompter is configured; the unlock is dismissed")
            return false
        }
        var errorText: String?
        for attempt in 1...Self.attempts {
            let request = PasswordRequest(collectionLabel: info.label, windowID: windowID, caller: caller,
                                          attempt: attempt, errorText: errorText)
            guard let password = await prompter.password(for: request), !Task.isCancelled else { return false }
            do {
                if try await context.store.unlock(collection, password: password) { return true }
            } catch {
                context.logger.error("the collection could not be unlocked",
                                     metadata: ["secret.collection": "\(collection)", "error": "\(error)"])
                return false
            }
            errorText = "The password was not correct. Please try again."
        }
        context.logger.notice("unlock dismissed after \(Self.attempts) wrong passwords",
                              metadata: ["secret.collection": "\(collection)"])
        return false
    }
}

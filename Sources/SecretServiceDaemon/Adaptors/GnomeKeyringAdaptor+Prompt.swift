// org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface
// SPDX-License-Identifier: Apache-2.0
// ChangeWithPrompt: a prompt that asks for the current password, then a new one, and re-keys the collection.

import DBusWire
import Logging
import SecretCrypto
import SecretServiceProtocol
import SecretStore

extension GnomeKeyringAdaptor {
    /// What the prompt's `Completed` carries, dismissed or not: gnome-keyring's change prompt sends the string ""
    /// (`gkd_secret_change_encode_result` in `daemon/dbus/gkd-secret-change.c`).
    static let changeResult = DBusValue.string("")

    /// `ChangeWithPrompt(o collection) → o prompt`. The collection is checked at once (NoSuchObject, NotSupported),
    /// as gnome-keyring does before it makes the prompt; the passwords are asked for when the client runs it.
    func changeWithPrompt(_ path: ObjectPath, caller: BusName) async throws(SecretServiceError) -> HandlerResult {
        let id = try await passwordCollection(at: path)
        guard let prompter = context.prompter as? any PasswordPrompter else {
            throw .notSupported("cofferd has no password prompter to ask for the passwords with")
        }
        let flow = PasswordChangeFlow(context: context, prompter: prompter)
        let work = PromptWork(emptyResult: Self.changeResult, question: .change(collection: id)) { windowID in
            await flow.run(id, windowID: windowID, caller: caller) ? Self.changeResult : nil
        }
        let prompt = try await context.clients.createPrompt(owner: caller, work: work)
        return context.registered([.objectPath(Paths.prompt(prompt))], for: caller)
    }
}

/// The dialogue that changes one collection's password: the current password, with up to ``UnlockFlow/attempts``
/// tries, then a new one (typed twice), then the re-keying. The current password is checked before the new one is
/// asked for, so a mistake costs one field, not two.
struct PasswordChangeFlow {
    let context: DaemonContext
    let prompter: any PasswordPrompter

    /// - Returns: whether the password was changed; `false` when the user dismissed a question, gave a wrong
    ///   current password ``UnlockFlow/attempts`` times, or the change failed.
    func run(_ collection: String, windowID: String, caller: BusName) async -> Bool {
        guard let info = try? await context.store.collectionInfo(collection, countingItemTimes: false) else { return false }
        var request = PasswordRequest(collectionLabel: info.label, windowID: windowID, caller: caller,
                                      isPasswordChange: true)
        guard let current = await currentPassword(of: collection, asking: request) else { return false }
        request.attempt = 1
        request.errorText = nil
        guard let new = await prompter.newPassword(for: request), !Task.isCancelled else { return false }
        do {
            if try await context.store.changePassword(of: collection, from: current, to: new) { return true }
            // The check passed a moment ago, so another client changed the password in between.
            context.logger.notice("the password changed while the prompt was showing; nothing was changed",
                                  metadata: ["secret.collection": "\(collection)"])
        } catch {
            context.logger.error("the password could not be changed",
                                 metadata: ["secret.collection": "\(collection)", "error": "\(error)"])
        }
        return false
    }

    /// Asks for the current password until it is right, up to ``UnlockFlow/attempts`` times.
    /// - Returns: the right password, or `nil` when dismissed, cancelled, wrong every time or uncheckable.
    private func currentPassword(of collection: String, asking first: PasswordRequest) async -> SecretBytes? {
        var request = first
        for attempt in 1...UnlockFlow.attempts {
            request.attempt = attempt
            guard let candidate = await prompter.password(for: request), !Task.isCancelled else { return nil }
            do {
                if try await context.store.checkPassword(of: collection, candidate) { return candidate }
            } catch {
                context.logger.error("the current password could not be checked",
                                     metadata: ["secret.collection": "\(collection)", "error": "\(error)"])
                return nil
            }
            request.errorText = "The current password was not correct. Please try again."
        }
        context.logger.notice("password change dismissed after \(UnlockFlow.attempts) wrong passwords",
                              metadata: ["secret.collection": "\(collection)"])
        return nil
    }
}

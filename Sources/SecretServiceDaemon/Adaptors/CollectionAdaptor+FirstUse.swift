// SPDX-License-Identifier: Apache-2.0
// The first item stored into the default alias of a fresh account: a prompt creates `login`, then the item.

import DBusWire
import Logging
import SecretCrypto
import SecretServiceProtocol
import SecretStore

extension CollectionAdaptor {
    /// The label the first collection gets, as gnome-keyring names its login keyring.
    static let firstCollectionLabel = "Login"

    /// `CreateItem` on the default alias while no collection exists. Failing with NoSuchObject would leave every
    /// client that does not create the collection itself (libsecret does, python keyring and others do not) unable
    /// to store anything in a fresh account. Instead the answer is a prompt, as the specification allows, that asks
    /// for a new password, creates `login` with the default alias, and stores the item there; `Completed` carries
    /// the item's path.
    ///
    /// The secret is decoded now, so a bad session fails the call rather than the prompt, and waits in secure
    /// memory until the prompt ends.
    func createFirstItem(properties: [String: DBusValue], secret: WireSecret, replace: Bool, caller: BusName,
                         receivedAt: UInt64)
        async throws(SecretServiceError) -> HandlerResult {
        let (label, attributes) = try Self.itemFields(properties)
        let session = try await context.session(at: secret.session, caller: caller)
        let value = try session.decode(secret)
        guard let prompter = context.prompter as? any PasswordPrompter else {
            throw .noSuchObject("no such collection")
        }
        let store = context.store
        let logger = context.logger
        let creator = Self.isUnowned(properties) ? nil : await context.access.creator(for: caller, receivedAt: receivedAt)
        // No default collection yet: `coffer unlock-keychain` creates `login` as the default, as this prompt would.
        let work = PromptWork(emptyResult: .objectPath(.root), question: .unlock(collection: nil)) { windowID in
            var collection = await store.resolveAlias(SecretServiceNames.defaultAlias)
            if collection == nil {
                let request = PasswordRequest(collectionLabel: Self.firstCollectionLabel, windowID: windowID,
                                              caller: caller)
                guard let password = await prompter.newPassword(for: request), !Task.isCancelled else { return nil }
                defer { password.wipe() }
                // Another client's prompt may have created it while this one asked.
                collection = await store.resolveAlias(SecretServiceNames.defaultAlias)
                if collection == nil {
                    do {
                        collection = try await store.createCollection(
                            label: Self.firstCollectionLabel, alias: SecretServiceNames.defaultAlias,
                            password: password, preferredID: "login").0
                        logger.info("created the login collection for the first item stored in the default alias")
                    } catch {
                        logger.error("the login collection could not be created", metadata: ["error": "\(error)"])
                        return nil
                    }
                }
            }
            guard let collection else { return nil }
            do {
                let (item, _) = try await store.createItem(in: collection, label: label, attributes: attributes,
                                                           secret: value, replace: replace, creator: creator)
                return .objectPath(Paths.item(collection, item))
            } catch {
                logger.notice("the first item could not be stored", metadata: ["error": "\(error)"])
                return nil
            }
        }
        let prompt = try await context.clients.createPrompt(owner: caller, work: work)
        return context.registered([.objectPath(.root), .objectPath(Paths.prompt(prompt))], for: caller)
    }
}

// SPDX-License-Identifier: Apache-2.0
// The dialogue that lets one application use an item another application created.

import DBusWire
import Logging
import SecretStore

/// Asks the user, for an `Unlock` prompt, whether the caller may use an item, and records the answer: "allow
/// once" for the caller's connection, "always allow" for its application identity.
struct ConsentFlow {
    let context: DaemonContext

    /// How many items of the unlocked collection `caller` may not use.
    func othersItems(in collection: String, caller: BusName) async -> Int {
        guard context.access.policy.mode(for: collection) != .off,
              let items = try? await context.store.itemIDs(in: collection) else { return 0 }
        var count = 0
        for item in items where await !context.access.permits(caller, collection: collection, item: item) {
            count += 1
        }
        return count
    }

    /// Asks whether `caller` may delete a collection that holds items of other applications; any "allow" answer
    /// allows this deletion (there is nothing left to remember afterwards).
    func allowsDeletion(of collection: String, windowID: String, caller: BusName) async -> Bool {
        let others = await othersItems(in: collection, caller: caller)
        guard others > 0 else { return true }
        guard let who = await context.access.identities.known(caller),
              let info = try? await context.store.collectionInfo(collection)
        else { return false }
        let request = AccessRequest(application: who.identity.displayName, processID: who.processID,
                                    commandLine: who.commandLine,
                                    itemLabel: "the whole keyring, with \(others) secret(s) of other applications",
                                    collectionLabel: info.label, unowned: false, keepsAnswer: false)
        let answer = await context.prompter.consent(PromptRequest(kind: .access(request), windowID: windowID,
                                                                  caller: caller))
        context.logger.info("collection deletion \(answer)", metadata: [
            "secret.collection": "\(collection)", "app": "\(who.identity)",
        ])
        // Any "allow" lets this one deletion go ahead, and nothing is kept: logged as allowed once.
        await context.access.record(Task.isCancelled ? .dismissed : answer == .deny ? .denied : .allowedOnce, who,
                                    collection: collection)
        return answer != .deny
    }

    /// - Returns: whether the caller may use the item afterwards.
    func run(collection: String, item: String, windowID: String, caller: BusName) async -> Bool {
        let access = context.access
        if await access.permits(caller, collection: collection, item: item) { return true }
        guard let who = await access.identities.known(caller),
              let info = try? await context.store.itemInfo(collection: collection, item: item),
              let collectionInfo = try? await context.store.collectionInfo(collection),
              let ownership = try? await context.store.itemOwnership(collection: collection, item: item)
        else { return false }
        let request = AccessRequest(application: who.identity.displayName, processID: who.processID,
                                    commandLine: who.commandLine, itemLabel: info.label,
                                    collectionLabel: collectionInfo.label, unowned: ownership.creator == nil,
                                    accessGroup: ownership.accessGroup)
        let answer = await context.prompter.consent(PromptRequest(kind: .access(request), windowID: windowID,
                                                                  caller: caller))
        guard !Task.isCancelled else {
            await access.record(.dismissed, who, collection: collection, item: item)
            return false
        }
        switch answer {
        case .allowOnce:
            await access.decisions.allowOnce(caller, ItemKey(collection: collection, item: item))
        case .alwaysAllow:
            // Kept sealed in the collection file, so the decision survives restarts and follows the file: with the
            // item, or for an item of a `Keychain` access group, for the whole group (one question per group).
            do {
                if let group = ownership.accessGroup {
                    let grant = CollectionGrant(application: who.identity.description, accessGroup: group).entry
                    let grants = try await context.store.collectionAllowedApplications(collection)
                    try await context.store.setCollectionAllowedApplications(grants + [grant], collection: collection)
                } else {
                    try await context.store.setAllowedApplications(ownership.allowed + [who.identity.description],
                                                                   collection: collection, item: item)
                }
            } catch {
                context.logger.error("the decision could not be stored", metadata: ["error": "\(error)"])
                return false
            }
        case .alwaysAllowCollection:
            // One entry for the whole collection, as `coffer access grant --collection` stores it: it covers items
            // stored later too, and `coffer access revoke APP` takes it back with the rest.
            do {
                let grants = try await context.store.collectionAllowedApplications(collection)
                let grant = CollectionGrant(application: who.identity.description).entry
                if !grants.contains(grant) {
                    try await context.store.setCollectionAllowedApplications(grants + [grant], collection: collection)
                }
            } catch {
                context.logger.error("the decision could not be stored", metadata: ["error": "\(error)"])
                return false
            }
        case .deny:
            break
        }
        context.logger.info("access \(answer)", metadata: [
            "secret.collection": "\(collection)", "secret.item": "\(item)", "app": "\(who.identity)",
        ])
        // A whole-collection decision is logged without an item, as the log names the collection as a whole.
        await access.record(answer.logged, who, collection: collection,
                            item: answer == .alwaysAllowCollection ? "" : item)
        return answer != .deny
    }
}

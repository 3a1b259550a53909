// io.coffer.Access
// SPDX-License-Identifier: Apache-2.0
// Grant: "always allow" given ahead of time, once the user confirms it in a prompt.

import DBusWire
import Logging
import SecretServiceProtocol
import SecretStore

extension AccessAdaptor {
    /// `Grant(o collection, s application, ao items) → o prompt`: always allows `application` (an identity as
    /// `ListAccess` writes it) to use the given items of the collection, or, without items, every item of it,
    /// present and future (kept in the collection, not in each item). Nothing changes until the user confirms the
    /// prompt, which names the program that asks; its `Completed` result lists what was granted.
    /// - Throws: `invalidArgs` when `application` is not an identity; `noSuchObject`; `isLocked` when the
    ///   collection is locked (its decisions are sealed).
    func grant(_ path: ObjectPath, application: String, items paths: [ObjectPath], call: MethodCall)
        async throws(SecretServiceError) -> HandlerResult {
        guard AppIdentity(application) != nil else {
            throw .invalidArgs("'\(application)' is not an application identity (KIND:NAME, as `coffer access list` "
                + "writes it)")
        }
        guard application.utf8.count <= SecretStore.maximumIdentityBytes else {
            throw .invalidArgs("the application identity is too long")
        }
        let id = try await collection(at: path)
        let items = try await self.items(paths, in: id)
        let collectionInfo = try await context.store.collectionInfo(id, countingItemTimes: false)
        guard !collectionInfo.isLocked else { throw .isLocked("unlock the collection first: its decisions are sealed") }
        var labels: [String] = []
        for item in items { labels.append(try await context.store.itemInfo(collection: id, item: item).label) }
        let requester = try await context.access.identities.caller(call.caller, receivedAt: call.receivedAt)
        let request = GrantRequest(grantee: application, requester: requester.identity.displayName,
                                   processID: requester.processID, commandLine: requester.commandLine,
                                   itemLabels: labels, collectionLabel: collectionInfo.label)
        let context = context
        let caller = call.caller
        let work = PromptWork(emptyResult: .objectPaths([]), question: .consent) { windowID in
            let approved = await context.prompter.approve(PromptRequest(kind: .grant(request), windowID: windowID,
                                                                        caller: caller))
            guard approved, !Task.isCancelled else {
                await Self.logGrant(Task.isCancelled ? .dismissed : .grantRefused, application, items, in: id,
                                    requester: requester, context: context)
                return nil
            }
            do {
                let granted = try await Self.store(application, items, in: id, context: context)
                await Self.logGrant(.granted, application, items, in: id, requester: requester, context: context)
                return .objectPaths(granted)
            } catch {
                context.logger.error("the grant could not be stored", metadata: ["error": "\(error)"])
                return nil
            }
        }
        let prompt = try await context.clients.createPrompt(owner: caller, work: work)
        return context.registered([.objectPath(Paths.prompt(prompt))], for: caller)
    }

    /// Adds `application` to the items' lists, or the collection's without items; returns the paths granted.
    private static func store(_ application: String, _ items: [String], in id: String, context: DaemonContext)
        async throws(SecretServiceError) -> [ObjectPath] {
        guard !items.isEmpty else {
            let everything = try await context.store.collectionAllowedApplications(id)
            if !everything.contains(application) {
                try await context.store.setCollectionAllowedApplications(everything + [application], collection: id)
            }
            return [Paths.collection(id)]
        }
        for item in items {
            let allowed = try await context.store.itemOwnership(collection: id, item: item).allowed
            if !allowed.contains(application) {
                try await context.store.setAllowedApplications(allowed + [application], collection: id, item: item)
            }
        }
        return items.map { Paths.item(id, $0) }
    }

    private static func logGrant(_ outcome: AccessLogEntry.Outcome, _ application: String, _ items: [String],
                                 in id: String, requester: Caller, context: DaemonContext) async {
        for item in items.isEmpty ? [""] : items {
            await context.access.log.record(AccessLogEntry(
                time: AccessGate.now(), outcome: outcome, application: application,
                processID: UInt32(bitPattern: requester.processID), collection: id, item: item,
                requester: requester.identity.description))
        }
    }
}

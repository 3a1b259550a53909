// org.freedesktop.Secret.Service
// SPDX-License-Identifier: Apache-2.0
// Unlock and Lock of the service interface: immediate results plus a prompt for what needs the user.

import DBusWire
import SecretServiceProtocol
import SecretStore

extension ServiceAdaptor {
    /// `Unlock(ao) → (ao unlocked, o prompt)`: objects already unlocked come back at once; the locked ones are
    /// unlocked by one prompt whose `Completed` result lists them. Unknown paths are ignored. An item is locked
    /// for the caller too when another application created it: the prompt then asks the user whether this
    /// application may use it (after the collection's password, if the collection is locked), and the result
    /// lists the items allowed.
    func unlock(_ objects: [ObjectPath], caller: BusName) async throws(SecretServiceError) -> HandlerResult {
        var unlocked: [ObjectPath] = []
        var pending: [(path: ObjectPath, collection: String, item: String?)] = []
        // The locked collections among them: the prompt asks for their passwords first (and names them when it
        // cannot be shown).
        var lockedCollections: [String] = []
        for path in objects {
            guard let collection = await owningCollection(of: path),
                  let info = try? await context.store.collectionInfo(collection, countingItemTimes: false)
            else { continue }
            let item = await context.itemAddress(for: path)?.item
            if info.isLocked {
                pending.append((path, collection, item))
                lockedCollections.append(collection)
            } else if let item, await !context.access.permits(caller, collection: collection, item: item) {
                pending.append((path, collection, item))
            } else {
                unlocked.append(path)
            }
        }
        guard !pending.isEmpty else { return HandlerResult([.objectPaths(unlocked), .objectPath(.root)]) }

        let requested = pending
        let context = context
        let question = lockedCollections.isEmpty
            ? PromptQuestion.consent : await context.unlockQuestion(for: lockedCollections)
        var work = PromptWork(emptyResult: .objectPaths([]), question: question) { windowID in
            var unlocked = Set<String>()
            for (_, collection, _) in requested where !unlocked.contains(collection) {
                let done = await context.unlocks.unlock(collection) {
                    await UnlockFlow(context: context).run(collection, windowID: windowID, caller: caller)
                }
                guard done, !Task.isCancelled else { return nil }
                unlocked.insert(collection)
            }
            var allowed: [ObjectPath] = []
            for (path, collection, item) in requested {
                if let item {
                    let flow = ConsentFlow(context: context)
                    guard await flow.run(collection: collection, item: item, windowID: windowID, caller: caller),
                          !Task.isCancelled
                    else { continue }
                }
                allowed.append(path)
            }
            // Nothing allowed: the user dismissed the prompt.
            return allowed.isEmpty ? nil : .objectPaths(allowed)
        }
        // Nobody can be asked: the items the caller would have been asked about are refused to it, and logged so
        // (those of a locked collection are not known to be another application's until it is unlocked).
        work.unasked = {
            for case (_, let collection, let item?) in requested
            where await !context.access.permits(caller, collection: collection, item: item) {
                guard (try? await context.store.collectionInfo(collection, countingItemTimes: false))?.isLocked == false
                else { continue }
                await context.access.refused(caller, collection: collection, item: item)
            }
        }
        let prompt = try await context.clients.createPrompt(owner: caller, work: work)
        return context.registered([.objectPaths(unlocked), .objectPath(Paths.prompt(prompt))], for: caller)
    }

    /// `Lock(ao) → (ao locked, o prompt)`: locking needs no approval, so it happens at once and the prompt is `/`.
    ///
    /// The in-memory `session` collection is locked too when named, and `locked` says so truthfully; gnome-keyring
    /// instead lists it as locked but keeps it open. Clients' "lock all" (coffer's among them) leave it out, since
    /// only an approval prompt unlocks it again (see docs/CLI-BEHAVIOUR.md).
    func lock(_ objects: [ObjectPath]) async throws(SecretServiceError) -> HandlerResult {
        var locked: [ObjectPath] = []
        for path in objects {
            guard let collection = await owningCollection(of: path) else { continue }
            if (try? await context.store.setLocked(collection, true)) != nil { locked.append(path) }
        }
        return HandlerResult([.objectPaths(locked), .objectPath(.root)])
    }

    /// The collection a collection, alias or item path belongs to. Locking is per collection: unlocking an item
    /// unlocks its collection.
    private func owningCollection(of path: ObjectPath) async -> String? {
        if let collection = await context.collectionID(for: path) { return collection }
        return await context.itemAddress(for: path)?.collection
    }
}

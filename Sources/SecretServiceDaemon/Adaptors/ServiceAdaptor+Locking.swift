// org.freedesktop.Secret.Service
// SPDX-License-Identifier: Apache-2.0
// Unlock and Lock of the service interface: immediate results plus a prompt for what needs the user.

import DBusWire
import SecretServiceProtocol
import SecretStore

extension ServiceAdaptor {
    /// `Unlock(ao) → (ao unlocked, o prompt)`: objects already unlocked come back at once; the locked ones are
    /// unlocked by one prompt whose `Completed` result lists them. Unknown paths are ignored.
    func unlock(_ objects: [ObjectPath], caller: BusName) async throws(SecretServiceError) -> HandlerResult {
        var unlocked: [ObjectPath] = []
        var pending: [(path: ObjectPath, collection: String)] = []
        for path in objects {
            guard let collection = await owningCollection(of: path),
                  let info = try? await context.store.collectionInfo(collection, countingItemTimes: false)
            else { continue }
            if info.isLocked {
                pending.append((path, collection))
            } else {
                unlocked.append(path)
            }
        }
        guard !pending.isEmpty else { return HandlerResult([.objectPaths(unlocked), .objectPath(.root)]) }

        let requested = pending
        let context = context
        let work = PromptWork(emptyResult: .objectPaths([])) { windowID in
            var unlocked = Set<String>()
            for (_, collection) in requested where !unlocked.contains(collection) {
                let done = await context.unlocks.unlock(collection) {
                    await UnlockFlow(context: context).run(collection, windowID: windowID, caller: caller)
                }
                guard done, !Task.isCancelled else { return nil }
                unlocked.insert(collection)
            }
            return .objectPaths(requested.map(\.path))
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

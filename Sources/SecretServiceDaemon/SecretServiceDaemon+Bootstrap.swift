// SPDX-License-Identifier: Apache-2.0
// What the daemon sets up before and while it starts serving: the collections, and --unlock's unlock of login.

import Logging
import SecretCrypto
import SecretServiceProtocol
import SecretStore

extension SecretServiceDaemon {
    /// The `--unlock` of an existing `login`, announced to the store before the name is claimed and run beside the
    /// claim and the first calls: calls that touch `login` wait for it, calls on other collections are answered
    /// meanwhile.
    struct PendingUnlock {
        let collection: String
        let password: LoginPasswordInput
    }

    /// Loads the collection files, unlocks those whose systemd credential the unit passed, sets up the in-memory
    /// `session` collection, and prepares `--unlock`: the login password unlocks `login` while the daemon starts
    /// serving (see ``PendingUnlock``), or creates it now on first start. `default` points at `login` when it
    /// exists and at nothing else was chosen; without files it points at `session`.
    /// - Returns: the unlock to run beside the name claim, if any.
    func bootstrapCollections() async throws -> PendingUnlock? {
        await store.configureSyncFolders(configuration.syncFolders)
        for problem in try await store.loadCollections() {
            logger.error("collection file unavailable; it is left untouched",
                         metadata: ["secret.collection": "\(problem.id)", "path": "\(problem.path)",
                                    "reason": "\(problem.reason)"])
        }
        if let directory = configuration.credentialsDirectory {
            await CredentialUnlock(directory: directory, store: store, logger: logger).run()
        }
        let session = SecretServiceNames.sessionCollection
        _ = try await store.createCollection(label: "Session", alias: session, inMemory: true, preferredID: session)
        let login = LoginKeyring.collectionID
        var pending: PendingUnlock?
        if let input = configuration.loginPassword {
            let exists = await store.collectionIDs().contains(login)
            if exists, try await store.collectionInfo(login, countingItemTimes: false).isLocked {
                await store.beginPendingUnlock(of: login)
                pending = PendingUnlock(collection: login, password: input)
            } else if let password = await input.read() {
                // Nothing needs the password after this: wipe it rather than keep it readable in memory for the
                // daemon's whole life (the configuration, and so the SecretBytes, live as long as the daemon).
                defer { password.wipe() }
                // Created (or checked, when a credential unlocked it) before the name is claimed: a client storing
                // into `default` right away must find it.
                _ = await LoginKeyring(store: store, logger: logger).unlockOrCreate(with: password, announcing: false)
            }
        }
        if await store.resolveAlias(SecretServiceNames.defaultAlias) == nil {
            if await store.collectionIDs().contains(login) {
                try await store.setAlias(SecretServiceNames.defaultAlias, to: login)
            } else if !store.keepsFiles {
                try await store.setAlias(SecretServiceNames.defaultAlias, to: session)
            }
        }
        return pending
    }

    /// Runs the start-up unlock announced by ``bootstrapCollections()``, then lets the calls waiting for it go on.
    func finishUnlock(_ pending: PendingUnlock) async {
        // A password still to be read is read now, while the daemon serves; none leaves `login` locked.
        if let password = await pending.password.read() {
            defer { password.wipe() }
            // Item changes are not announced (10,000 items would mean 40,000 signals delaying the first answers by
            // seconds): every call that could have shown a client this collection's items waited for this unlock.
            // The collection's own Locked change is, for clients that read its path meanwhile.
            if await LoginKeyring(store: store, logger: logger).unlockOrCreate(with: password, announcing: false)
                == .unlocked {
                await store.announceCollectionLockChange(of: pending.collection)
                logger.info("unlocked the login collection")
            }
        }
        // The unlock's transient buffers (the whole file, decoded records) go back to the system, and so do the
        // pages of code start-up alone ran, before the calls held back for the unlock run.
        releaseStartupPages()
        await store.endPendingUnlock(of: pending.collection)
    }
}

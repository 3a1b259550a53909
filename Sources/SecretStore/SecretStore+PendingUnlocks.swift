// SPDX-License-Identifier: Apache-2.0
// Unlocks announced before they start, so calls that need the collection wait for them rather than see it locked.

extension SecretStore {
    /// Which collections a call touches, for ``waitForPendingUnlocks(touching:)``.
    public enum UnlockWaitScope: Sendable {
        /// One collection, by identifier.
        case collection(String)
        /// The collection an alias names.
        case alias(String)
        /// Every collection (a search across all of them, a batch of paths).
        case all
    }

    /// Announces that `id` is about to be unlocked (cofferd's `--unlock` at start-up): from now until
    /// ``endPendingUnlock(of:)``, ``waitForPendingUnlocks(touching:)`` holds back calls that touch it. The daemon
    /// claims its bus name before the deliberately slow key derivation, and a client that asks for a login secret in
    /// that moment must get it once the derivation ends, not a locked answer or a prompt for the password already given.
    public func beginPendingUnlock(of id: String) {
        if pendingUnlocks[id] == nil { pendingUnlocks[id] = [] }
    }

    /// Ends the pending unlock of `id`, whatever its outcome (a wrong password leaves the collection locked), and
    /// lets the calls waiting for it go on.
    public func endPendingUnlock(of id: String) {
        guard let waiters = pendingUnlocks.removeValue(forKey: id) else { return }
        for waiter in waiters { waiter.resume() }
    }

    /// Announces that `id`'s lock state changed without announcing each item: for an unlock made with
    /// `announcing: false` while clients could already hold the collection's path.
    public func announceCollectionLockChange(of id: String) {
        guard collections[id] != nil else { return }
        eventSink.yield(.collectionChanged(id, [.locked]))
    }

    /// Whether an unlock announced with ``beginPendingUnlock(of:)`` is still under way.
    public func hasPendingUnlock(of id: String) -> Bool { pendingUnlocks[id] != nil }

    /// Returns once no announced unlock is under way for the collections in `scope`; at once when none is (every
    /// call after start-up).
    /// - Parameter beforeWaiting: called once, just before the first wait, when there is one to wait for.
    /// - Returns: whether it waited.
    @discardableResult
    public func waitForPendingUnlocks(touching scope: UnlockWaitScope,
                                      beforeWaiting: @Sendable () -> Void = {}) async -> Bool {
        var waited = false
        while !pendingUnlocks.isEmpty {
            let id: String?
            switch scope {
            case .collection(let collection): id = collection
            case .alias(let name): id = aliases[name]
            case .all: id = pendingUnlocks.keys.first
            }
            guard let id, pendingUnlocks[id] != nil else { break }
            if !waited { beforeWaiting() }
            waited = true
            await withCheckedContinuation { pendingUnlocks[id, default: []].append($0) }
        }
        return waited
    }
}

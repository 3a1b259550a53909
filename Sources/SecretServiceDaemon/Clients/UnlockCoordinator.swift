// SPDX-License-Identifier: Apache-2.0
// Makes concurrent unlock requests for one collection share a single password prompt.

/// Runs at most one unlock dialogue per collection; callers arriving while one runs wait for its outcome instead of
/// opening a second pinentry.
actor UnlockCoordinator {
    private var running: [String: [CheckedContinuation<Bool, Never>]] = [:]

    /// Unlocks `collection` with `attempt`, or joins an attempt already under way.
    func unlock(_ collection: String, attempt: @Sendable () async -> Bool) async -> Bool {
        if running[collection] != nil {
            return await withCheckedContinuation { running[collection]?.append($0) }
        }
        running[collection] = []
        let outcome = await attempt()
        let waiters = running.removeValue(forKey: collection) ?? []
        for waiter in waiters { waiter.resume(returning: outcome) }
        return outcome
    }
}

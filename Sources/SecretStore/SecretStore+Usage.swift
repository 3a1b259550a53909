// SPDX-License-Identifier: Apache-2.0
// When each collection was last used and unlocked, and locking the ones kept open longer than allowed.

extension SecretStore {
    // MARK: - Recording

    /// Records a use (a secret read or a write), which postpones an idle lock.
    func markUsed(_ id: String) {
        collections[id]?.lastUsed = usageClock.elapsed()
    }

    /// Records that a collection became unlocked (by unlocking or creating it), which restarts both of its timers and
    /// may bring a deadline closer than any the scheduler waits for, so it is told through ``unlocks``.
    func markUnlocked(_ id: String) {
        let now = usageClock.elapsed()
        collections[id]?.lastUsed = now
        collections[id]?.unlockedAt = now
        unlockSink.yield()
    }

    // MARK: - Auto-lock

    /// Locks, in one step, every unlocked collection whose time ran out, so a use that arrives while the scheduler is
    /// deciding can never be lost: the check and the lock happen in the same turn of the actor. Each lock is announced
    /// on ``events`` like any other.
    /// - Parameter timeouts: the limits for a collection, given its identifier and whether it lives in memory.
    /// - Returns: what was locked, and how long until the next unlocked collection is due.
    public func lockExpired(timeouts: @Sendable (_ collection: String, _ isInMemory: Bool) -> LockTimeouts)
        -> LockSweep {
        let now = usageClock.elapsed()
        var sweep = LockSweep(locked: [], nextDue: nil)
        for id in collections.keys.sorted() {
            guard let state = collections[id], !state.isLocked else { continue }
            let limits = timeouts(id, state.isInMemory)
            let deadlines = [limits.idle.map { state.lastUsed + $0 }, limits.unlocked.map { state.unlockedAt + $0 }]
            guard let due = deadlines.compactMap({ $0 }).min() else { continue }
            if due <= now {
                if (try? setLocked(id, true)) == true { sweep.locked.append(id) }
            } else {
                sweep.nextDue = min(sweep.nextDue ?? due - now, due - now)
            }
        }
        return sweep
    }
}

extension SecretStore {
    /// Locks, in one step, every unlocked collection `selects` picks, each announced on ``events`` like any other
    /// lock. One actor turn decides and locks, so no collection is seen half-way.
    /// - Parameter selects: whether to lock a collection, given its identifier and whether it lives in memory.
    /// - Returns: the collections locked, sorted.
    public func lockCollections(where selects: (_ collection: String, _ isInMemory: Bool) -> Bool) -> [String] {
        var locked: [String] = []
        for id in collections.keys.sorted() {
            guard let state = collections[id], !state.isLocked, selects(id, state.isInMemory) else { continue }
            if (try? setLocked(id, true)) == true { locked.append(id) }
        }
        return locked
    }
}

/// How long one collection may stay unlocked; `nil` means no limit.
public struct LockTimeouts: Sendable, Hashable {
    /// Lock after this long without a use (a secret read, a write, an unlock).
    public var idle: Duration?
    /// Lock this long after unlocking, however busy the collection is.
    public var unlocked: Duration?

    public init(idle: Duration? = nil, unlocked: Duration? = nil) {
        self.idle = idle
        self.unlocked = unlocked
    }

    /// No auto-lock.
    public static let never = LockTimeouts()
}

/// The outcome of ``SecretStore/lockExpired(timeouts:)``.
public struct LockSweep: Sendable, Hashable {
    /// The collections just locked, sorted.
    public var locked: [String]
    /// How long until the next collection is due; `nil` when none has a limit.
    public var nextDue: Duration?
}

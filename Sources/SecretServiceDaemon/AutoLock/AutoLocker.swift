// SPDX-License-Identifier: Apache-2.0
// Locks collections left unused, or unlocked, for longer than the auto-lock policy allows.

public import Logging
public import SecretStore

/// Sleeps until the earliest auto-lock deadline, has the store lock whatever is due, and sleeps again.
///
/// Deadlines come from the store, which stamps every use and unlock; a use only ever moves a deadline later, so waking
/// at a stale deadline costs one sweep that locks nothing. An unlock can bring a deadline closer, so the store's
/// ``SecretStore/unlocks`` stream wakes the locker early. Locks go through the store, which announces them on its
/// events like any other lock (PropertiesChanged for `Locked`, `CollectionChanged`).
public struct AutoLocker<C: Clock>: Sendable where C.Duration == Duration {
    /// What one sweep did, for tests and diagnostics.
    public struct Sweep: Sendable, Hashable {
        /// The collections locked by this sweep, sorted.
        public var locked: [String]
        /// When the locker will look again unless woken earlier; `nil` when no unlocked collection has a limit.
        public var next: C.Instant?

        public init(locked: [String], next: C.Instant?) {
            self.locked = locked
            self.next = next
        }
    }

    private let store: SecretStore
    private let policy: AutoLockPolicy
    private let clock: C
    private let logger: Logger
    private let onSweep: @Sendable (Sweep) -> Void

    /// - Parameters:
    ///   - store: the collections to watch; its ``UsageClock`` must read `clock`.
    ///   - policy: the limits per collection.
    ///   - clock: what the locker sleeps on (`ContinuousClock` in the daemon).
    ///   - logger: notes each automatic lock at info level.
    ///   - onSweep: called after every sweep.
    public init(store: SecretStore, policy: AutoLockPolicy, clock: C, logger: Logger,
                onSweep: @escaping @Sendable (Sweep) -> Void = { _ in }) {
        self.store = store
        self.policy = policy
        self.clock = clock
        self.logger = logger
        self.onSweep = onSweep
    }

    /// Runs until cancelled or until the store goes away.
    public func run() async {
        // Unlock notices and expired timers both land here. One buffered wake-up is enough: each one starts a sweep
        // that reads every collection afresh.
        let (wakeUps, wakeUp) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await _ in store.unlocks { wakeUp.yield() }
                wakeUp.finish()
            }
            var wakes = wakeUps.makeAsyncIterator()
            while !Task.isCancelled {
                let next = await sweep()
                guard await wait(until: next, wakes: &wakes, wakeUp: wakeUp) else { break }
            }
            group.cancelAll()
        }
    }

    /// Locks what is due and reports when to look again.
    private func sweep() async -> C.Instant? {
        let policy = self.policy
        let result = await store.lockExpired { policy.timeouts(for: $0, isInMemory: $1) }
        // Read the clock after the store did: the deadline can only come out late, never early.
        let next = result.nextDue.map { clock.now.advanced(by: $0) }
        for id in result.locked {
            logger.info("locked a collection whose auto-lock time ran out", metadata: ["secret.collection": "\(id)"])
        }
        onSweep(Sweep(locked: result.locked, next: next))
        return next
    }

    /// Waits until `deadline` or an earlier wake-up.
    /// - Returns: `false` when the locker must stop.
    private func wait(until deadline: C.Instant?, wakes: inout AsyncStream<Void>.Iterator,
                      wakeUp: AsyncStream<Void>.Continuation) async -> Bool {
        await withTaskGroup(of: Void.self) { timer in
            if let deadline {
                timer.addTask {
                    // The timer is cancelled when an unlock wakes the loop first; only a sleep that ran its course
                    // may wake it.
                    if (try? await clock.sleep(until: deadline, tolerance: nil)) != nil { wakeUp.yield() }
                }
            }
            let woken = await wakes.next() != nil
            timer.cancelAll()
            return woken
        }
    }
}

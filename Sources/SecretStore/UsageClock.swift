// SPDX-License-Identifier: Apache-2.0
// Monotonic time for the store's last-use and unlock stamps, which auto-lock deadlines are measured from.

/// Where the store reads monotonic time for ``SecretStore/lockExpired(timeouts:)``. Whoever schedules auto-locking
/// must sleep on the same clock, so that a deadline the store computes is the one the scheduler waits for.
public struct UsageClock: Sendable {
    /// Time since an arbitrary origin fixed when the clock was made; only differences matter.
    let elapsed: @Sendable () -> Duration

    /// Reads `clock`; tests pass a clock they advance by hand.
    public init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
    }

    /// The system's monotonic clock. It keeps counting while the machine is suspended, so suspended time counts
    /// toward auto-lock deadlines.
    public static var continuous: UsageClock { UsageClock(ContinuousClock()) }
}

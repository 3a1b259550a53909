// SPDX-License-Identifier: Apache-2.0
// What a bus loop polls and dispatches besides its own job queue.

import Glibc

/// The I/O a ``BusLoop`` drives on its thread. Every method is called on the loop thread only.
protocol BusLoopSource: AnyObject {
    /// Appends the descriptors to poll and returns the poll timeout in milliseconds (`-1`: no deadline).
    func preparePoll(into descriptors: inout [pollfd]) -> Int32
    /// Receives the descriptors appended by ``preparePoll(into:)`` with `revents` filled, then fires due timers.
    func handlePoll(_ descriptors: ArraySlice<pollfd>)
    /// Delivers queued incoming work. Returns `true` when more is left (the loop then polls without waiting).
    func dispatch() -> Bool
}

// SPDX-License-Identifier: Apache-2.0
// Waits for a line in the daemon's log as an event: inotify reports each write, the log is checked after each.

import Foundation
import Glibc

extension DaemonHarness {
    /// Returns once the daemon's log contains `text`. Each write to the log file wakes the wait (inotify), so the
    /// log is read only when it changed and the wait never sleeps.
    /// - Parameters:
    ///   - text: what the log must contain.
    ///   - limit: the guard against a line that never comes.
    /// - Throws: ``DeadlineExceeded`` when `limit` passes first.
    public func waitForLog(containing text: String, limit: Duration = .seconds(60)) async throws {
        // Watched before the first check, so a write between the check and the wait still wakes it.
        let events = try FileEvents(logFile.path, mask: UInt32(IN_MODIFY))
        try await events.wait(until: { self.log().contains(text) }, limit: limit,
                              what: "'\(text)' in \(logFile.lastPathComponent)")
    }
}

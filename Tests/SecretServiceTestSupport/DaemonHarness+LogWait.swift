// SPDX-License-Identifier: Apache-2.0
// Waits for a line in the daemon's log as an event: inotify reports each write, the log is checked after each.

import Dispatch
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
        let watch = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard watch >= 0 else { throw StartError("inotify_init1: errno \(errno)") }
        // Watched before the first check, so a write between the check and the wait still wakes it.
        guard inotify_add_watch(watch, logFile.path, UInt32(IN_MODIFY)) >= 0 else {
            close(watch)
            throw StartError("inotify_add_watch \(logFile.path): errno \(errno)")
        }
        let (writes, writeSeen) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let source = DispatchSource.makeReadSource(fileDescriptor: watch, queue: .global())
        source.setEventHandler {
            var events = [UInt8](repeating: 0, count: 4096)
            while read(watch, &events, events.count) > 0 {}
            writeSeen.yield()
        }
        source.setCancelHandler {
            close(watch)
            writeSeen.finish()
        }
        source.resume()
        defer { source.cancel() }
        try await withDeadline(limit, waitingFor: "'\(text)' in \(logFile.lastPathComponent)") {
            if self.log().contains(text) { return }
            for await _ in writes where self.log().contains(text) { return }
            throw DeadlineExceeded(what: "'\(text)' in the log (the watch ended)", limit: limit)
        }
    }
}

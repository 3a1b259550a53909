// SPDX-License-Identifier: Apache-2.0
// Waiting for something to happen to a file as an event (inotify), never by polling or sleeping.

import Dispatch
import Foundation
import Glibc

/// The inotify events of one file, as an async stream of wake-ups.
public final class FileEvents: @unchecked Sendable {
    // @unchecked: `source` is set once in init and only cancelled (in deinit); a dispatch source is thread-safe.
    private let source: any DispatchSourceRead
    /// One element per batch of events read (the events themselves are not needed by the waits built on this).
    public let wakeUps: AsyncStream<Void>

    /// Starts watching `path` for `mask` (`IN_MODIFY`, `IN_OPEN`, …); events before this call are not seen.
    /// - Throws: ``DaemonHarness/StartError`` when inotify is unavailable or the file cannot be watched.
    public init(_ path: String, mask: UInt32) throws {
        let watch = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard watch >= 0 else { throw DaemonHarness.StartError("inotify_init1: errno \(errno)") }
        guard inotify_add_watch(watch, path, mask) >= 0 else {
            close(watch)
            throw DaemonHarness.StartError("inotify_add_watch \(path): errno \(errno)")
        }
        let (wakeUps, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.wakeUps = wakeUps
        source = DispatchSource.makeReadSource(fileDescriptor: watch, queue: .global())
        source.setEventHandler {
            var events = [UInt8](repeating: 0, count: 4096)
            while read(watch, &events, events.count) > 0 {}
            wake.yield()
        }
        source.setCancelHandler {
            close(watch)
            wake.finish()
        }
        source.resume()
    }

    deinit { source.cancel() }

    /// Returns once `condition` holds, checking it now and after each event.
    /// - Throws: ``DeadlineExceeded`` when `limit` passes first.
    public func wait(until condition: @escaping @Sendable () -> Bool, limit: Duration = .seconds(60),
                     what: String) async throws {
        let wakeUps = wakeUps
        try await withDeadline(limit, waitingFor: what) {
            if condition() { return }
            for await _ in wakeUps where condition() { return }
            throw DeadlineExceeded(what: "\(what) (the watch ended)", limit: limit)
        }
    }
}

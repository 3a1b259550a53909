// SPDX-License-Identifier: Apache-2.0
// A thread of its own for work that blocks in poll(2) or read(2), so it never holds a concurrency pool thread.

#if canImport(Glibc)
import Glibc
#endif

/// Starts detached POSIX threads for the daemon's blocking readers (a pinentry's pipe, the login channel's socket).
/// Such a reader waits in the kernel for as long as its peer likes; on a cooperative pool thread that wait would
/// starve every task of the daemon.
enum DetachedThread {
    /// Runs `body` on a new detached thread. The closure is retained until it has run.
    static func start(_ body: @escaping @Sendable () -> Void) {
        final class Work: Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let retained = Unmanaged.passRetained(Work(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { argument in
            Unmanaged<Work>.fromOpaque(argument!).takeRetainedValue().body()
            return nil
        }, retained)
        precondition(result == 0, "pthread_create failed: \(result)")
        pthread_detach(thread)
    }
}

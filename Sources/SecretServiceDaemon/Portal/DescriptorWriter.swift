// SPDX-License-Identifier: Apache-2.0
// Writes a secret to a descriptor a client passed, without letting the client stall or kill the daemon.

import Glibc
import SecretCrypto

/// Writes to descriptors that come from other processes.
enum DescriptorWriter {
    /// Writes all of `secret` to `descriptor`, or gives up.
    ///
    /// The descriptor is made non-blocking first: calls run on the bus thread, and a pipe its owner filled and
    /// never reads would otherwise hold every client's call. A secret is far smaller than any pipe's buffer, so a
    /// reader that is there takes it at once.
    /// - Returns: whether every byte was written.
    static func write(_ secret: SecretBytes, to descriptor: Int32) -> Bool {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else { return false }
        return withoutBrokenPipeSignal {
            secret.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0, errno == EINTR {
                        continue
                    } else {
                        return false
                    }
                }
                return true
            }
        }
    }

    /// Runs `body` with SIGPIPE blocked on this thread, and takes a SIGPIPE it raised before unblocking.
    ///
    /// Writing to a pipe whose reader has gone raises SIGPIPE, whose default action ends the daemon; an application
    /// can close its end before the secret arrives. `MSG_NOSIGNAL` exists for sockets only, and ignoring SIGPIPE
    /// process-wide would change it for everything else the daemon does. The signal a write raises is directed at
    /// the writing thread, so it stays pending while blocked and `sigtimedwait` takes it; the write fails with EPIPE.
    private static func withoutBrokenPipeSignal<T>(_ body: () -> T) -> T {
        var brokenPipe = sigset_t()
        sigemptyset(&brokenPipe)
        sigaddset(&brokenPipe, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &brokenPipe, &previous)
        defer {
            var pending = sigset_t()
            if sigismember(&previous, SIGPIPE) == 0, sigpending(&pending) == 0, sigismember(&pending, SIGPIPE) == 1 {
                var immediately = timespec(tv_sec: 0, tv_nsec: 0)
                _ = sigtimedwait(&brokenPipe, nil, &immediately)
            }
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        return body()
    }
}

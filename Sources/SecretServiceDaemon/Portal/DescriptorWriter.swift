// SPDX-License-Identifier: Apache-2.0
// Writes a secret to a descriptor a client passed, without letting the client stall the daemon.

import Glibc
import SecretCrypto

/// Writes to descriptors that come from other processes.
enum DescriptorWriter {
    /// Writes all of `secret` to `descriptor`, or gives up.
    ///
    /// The descriptor is made non-blocking first: calls run on the bus thread, and a pipe its owner filled and
    /// never reads would otherwise hold every client's call. A secret is far smaller than any pipe's buffer, so a
    /// reader that is there takes it at once. A descriptor whose reader has gone fails with EPIPE (libdbus sets
    /// SIGPIPE to be ignored when the daemon connects).
    /// - Returns: whether every byte was written.
    static func write(_ secret: SecretBytes, to descriptor: Int32) -> Bool {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else { return false }
        return secret.withUnsafeBytes { bytes in
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

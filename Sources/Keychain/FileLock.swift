// SPDX-License-Identifier: Apache-2.0
// An advisory file lock that serializes search-then-write sequences across threads and processes.

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive `flock(2)` on a file named after the bus, in `$XDG_RUNTIME_DIR`.
///
/// Secret Service has no uniqueness, so "search the primary key, then create" must not interleave with another
/// writer using this library. Each acquisition opens its own file description, so the lock excludes other
/// threads of this process as well as other processes. It is taken on the caller's thread (which blocks anyway)
/// rather than on the operation thread, so a writer waiting for another process never stalls readers.
struct FileLock: ~Copyable {
    private let descriptor: Int32

    /// Blocks until the lock for `configuration`'s bus is held.
    /// - Returns: `nil` when the lock file cannot be opened (the operation then runs without cross-process
    ///   exclusion rather than failing).
    static func acquire(for configuration: KeychainConfiguration) -> FileLock? {
        let environment = ProcessInfo.processInfo.environment
        let directory = configuration.lockDirectory
            ?? environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 }
            ?? NSTemporaryDirectory()
        let path = (directory as NSString).appendingPathComponent(
            "coffer-keychain-\(getuid())-\(fnv1a(configuration.busKey)).lock")
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                close(descriptor)
                return nil
            }
        }
        return FileLock(descriptor: descriptor)
    }

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }  // closing the last descriptor releases the lock

    /// A stable 64-bit hash (Swift's `hashValue` is seeded per process, so it cannot name a shared file).
    private static func fnv1a(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}

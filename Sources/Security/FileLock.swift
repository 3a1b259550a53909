// SPDX-License-Identifier: Apache-2.0
// An advisory file lock that serializes search-then-write sequences across threads and processes.

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CofferKeychainConfiguration

/// An exclusive `flock(2)` on a file named after the bus, in a directory only the user can enter.
///
/// Secret Service has no uniqueness, so "search the primary key, then create" must not interleave with another
/// writer using this library. Each acquisition opens its own file description, so the lock excludes other
/// threads of this process as well as other processes. It is taken on the caller's thread (which blocks anyway)
/// rather than on the operation thread, so a writer waiting for another process never stalls readers.
///
/// The directory is ``KeychainConfiguration/lockDirectory``, else `$XDG_RUNTIME_DIR`, else the user's cache
/// directory (``lockDirectory(for:environment:)``); it must be the user's own with no access for anyone else. A
/// lock in a place other users can write would let them hold it forever (every write hangs) or swap the file (the
/// lock excludes nothing), so without such a directory there is no lock and writes fail.
struct FileLock: ~Copyable {
    private let descriptor: Int32

    /// Blocks until the lock for `configuration`'s bus is held.
    /// - Parameter environment: Where `XDG_RUNTIME_DIR` is read; the process environment by default.
    /// - Throws: ``KeychainFailure`` with `errSecNotAvailable` when there is no lock directory, or it or the lock
    ///   file is not the user's own (a symlink, another owner, open to group or others), or the file cannot be
    ///   opened or locked.
    static func acquire(for configuration: KeychainConfiguration,
                        environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(KeychainFailure) -> FileLock {
        let descriptor = try openLockFile(for: configuration, environment: environment)
        guard lock(descriptor, waiting: true) else {
            close(descriptor)
            throw KeychainFailure(errSecNotAvailable)
        }
        return FileLock(descriptor: descriptor)
    }

    /// Suspends until the lock for `configuration`'s bus is held, for callers that must not block their thread
    /// (tasks on the concurrency pool).
    ///
    /// An uncontended lock is taken at once. Only when another writer holds it does a thread of its own wait in
    /// `flock(2)`, which has no non-blocking wait; a pool thread blocked there could starve the very tasks that
    /// would release the lock.
    /// - Throws: as ``acquire(for:environment:)``.
    static func acquire(for configuration: KeychainConfiguration) async throws(KeychainFailure) -> FileLock {
        let descriptor = try openLockFile(for: configuration, environment: ProcessInfo.processInfo.environment)
        if lock(descriptor, waiting: false) { return FileLock(descriptor: descriptor) }
        guard errno == EWOULDBLOCK else {
            close(descriptor)
            throw KeychainFailure(errSecNotAvailable)
        }
        let locked = await withCheckedContinuation { continuation in
            Thread {
                // Named from inside: Foundation names the OS thread only from the thread itself (15 characters).
                Thread.current.name = "coffer.lockwait"
                continuation.resume(returning: lock(descriptor, waiting: true))
            }.start()
        }
        guard locked else {
            close(descriptor)
            throw KeychainFailure(errSecNotAvailable)
        }
        return FileLock(descriptor: descriptor)
    }

    /// Opens (creating it if needed) the lock file for `configuration`'s bus in a private directory.
    private static func openLockFile(for configuration: KeychainConfiguration, environment: [String: String])
        throws(KeychainFailure) -> Int32 {
        let directory = try lockDirectory(for: configuration, environment: environment)
        defer { close(directory) }
        let name = "coffer-keychain-\(getuid())-\(fnv1a(configuration.busKey)).lock"
        let descriptor = openat(directory, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw KeychainFailure(errSecNotAvailable) }
        guard isPrivate(descriptor, type: S_IFREG) else {
            close(descriptor)
            throw KeychainFailure(errSecNotAvailable)
        }
        return descriptor
    }

    /// The directory the lock file goes in, open, checked private on the descriptor (so what was checked is what
    /// the file is created in).
    ///
    /// The configured directory is used or refused as it is. Otherwise `$XDG_RUNTIME_DIR` when it is set and
    /// private, else `coffer` in the user's cache directory (`$XDG_CACHE_HOME`, else `~/.cache`), made with mode
    /// 0700 when missing: containers, `su` and cron jobs often have no runtime directory, and a write must not
    /// fail there while the home directory offers a place only the user can reach. A shared place (`/tmp`) is never
    /// used: anyone could hold or replace the lock there.
    private static func lockDirectory(for configuration: KeychainConfiguration, environment: [String: String])
        throws(KeychainFailure) -> Int32 {
        if let configured = configuration.lockDirectory { return try openPrivateDirectory(configured) }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/"),
           let directory = try? openPrivateDirectory(runtime) {
            return directory
        }
        guard let cache = cacheDirectory(environment) else { throw KeychainFailure(errSecNotAvailable) }
        // Only the last component is made here, private from the start; the parents are the user's business.
        _ = mkdir(cache, 0o700)
        return try openPrivateDirectory(cache)
    }

    /// `$XDG_CACHE_HOME/coffer`, else `.cache/coffer` in `$HOME` or the password database's home directory
    /// (creating `.cache` when the home has none).
    private static func cacheDirectory(_ environment: [String: String]) -> String? {
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") { return cache + "/coffer" }
        var home = environment["HOME"]
        if home?.hasPrefix("/") != true, let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir {
            home = String(cString: directory)
        }
        guard let home, home.hasPrefix("/") else { return nil }
        _ = mkdir(home + "/.cache", 0o700)
        return home + "/.cache/coffer"
    }

    private static func openPrivateDirectory(_ path: String) throws(KeychainFailure) -> Int32 {
        let directory = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard directory >= 0 else { throw KeychainFailure(errSecNotAvailable) }
        guard isPrivate(directory, type: S_IFDIR) else {
            close(directory)
            throw KeychainFailure(errSecNotAvailable)
        }
        return directory
    }

    /// Takes the exclusive lock, retrying after signals; without `waiting`, fails with `EWOULDBLOCK` in `errno`
    /// when another holds it.
    private static func lock(_ descriptor: Int32, waiting: Bool) -> Bool {
        while flock(descriptor, waiting ? LOCK_EX : LOCK_EX | LOCK_NB) != 0 {
            guard errno == EINTR else { return false }
        }
        return true
    }

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }  // closing the last descriptor releases the lock

    /// Whether `descriptor` is of `type`, owned by this user, and closed to group and others.
    private static func isPrivate(_ descriptor: Int32, type: mode_t) -> Bool {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return false }
        return status.st_mode & S_IFMT == type && status.st_uid == getuid() && status.st_mode & 0o077 == 0
    }

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

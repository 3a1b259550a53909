// SPDX-License-Identifier: Apache-2.0
// Locking libgcrypt's secure-memory pool page by page as it is first used, instead of all of it up front.

internal import CGcrypt
#if canImport(Glibc)
import Glibc
#endif

/// libgcrypt's own `mlock` of its pool makes every page of it resident from the start, although a daemon at rest
/// holds only a few keys there. SecretCrypto has libgcrypt create the pool unlocked and locks it itself with
/// `MLOCK_ONFAULT` before anything is stored in it: each page is locked the moment it is first touched, so no page
/// that ever held a secret can be swapped, and pages never used take no memory. `RLIMIT_MEMLOCK` is charged for the
/// whole pool either way, so a pool that could not be locked before cannot be locked now either.
enum SecurePoolLock {
    /// Locks the pool libgcrypt has just created and nothing uses yet. Returns whether the pool is locked.
    ///
    /// libgcrypt does not say where its pool is. It maps the pool with `mmap`, so the pool starts on a page, and
    /// while the pool is empty its first block starts right after a small header at that start. `gcry_is_secure`
    /// answers for exactly the pool's bytes, which confirms the bounds: the byte before the start is outside, and
    /// the pool's pages are inside up to its end. Any other layout (a future libgcrypt) leaves the pool unlocked
    /// and reports so, as a failed `mlock` did.
    ///
    /// The corresponding C functions are `gcry_malloc_secure`, `gcry_is_secure`, `mlock2` and `mlock`.
    static func lockEmptyPool() -> Bool {
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard pageSize > 0, let probe = gcry_malloc_secure(1) else { return false }
        defer { gcry_free(probe) }
        let address = UInt(bitPattern: probe)
        let start = UnsafeRawPointer(bitPattern: address & ~UInt(pageSize - 1))
        // The first block's header is a few machine words; a block further in means the pool was not empty.
        guard let start, address - UInt(bitPattern: start) < 64, gcry_is_secure(start - 1) == 0 else { return false }
        var length = 0
        while gcry_is_secure(start + length) != 0 {
            length += pageSize
        }
        guard length > 0 else { return false }
        if cgcry_lock_on_fault(start, length) == 0 {
            return true
        }
        // Without mlock2 (a kernel before 4.4, or valgrind) the pool is locked whole and resident, as libgcrypt would.
        // glibc reports a missing mlock2 as EINVAL when flags are given, which is also a kernel's answer to a flag
        // it does not know.
        return (errno == ENOSYS || errno == EINVAL) && mlock(start, length) == 0
    }
}

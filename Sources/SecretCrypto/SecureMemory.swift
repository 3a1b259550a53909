// SPDX-License-Identifier: Apache-2.0
// Where secret bytes live: libgcrypt's locked pool for small buffers, locked pages of their own for large ones.

internal import CGcrypt
#if canImport(Glibc)
import Glibc
#endif

/// Memory for secrets: locked into RAM (never swapped) and wiped on release. An allocation that cannot get such
/// memory fails with ``CryptoError/secureMemoryExhausted``; it never falls back to ordinary, swappable memory.
///
/// Small buffers (keys, passwords, ordinary secrets) come from libgcrypt's pool, which also holds libgcrypt's own
/// keyed contexts. Large ones (a secret of megabytes) get pages of their own, locked with `mlock`: a few of them would
/// otherwise use up the pool every key depends on. The pool is the one scarce resource, so this type also owns its
/// budget: long-lived keys that clients can multiply (a DH session's cipher context) are only created while
/// ``sessionReserveIsFree()`` says a quarter of the pool is still free, which keeps room for unlocking, key
/// derivation and the secrets being read or written.
enum SecureMemory {
    /// One allocation: its address, the size reserved, and whether it is a locked mapping rather than pool memory.
    struct Region {
        let base: UnsafeMutableRawPointer
        let size: Int
        let isMapping: Bool
    }

    /// Buffers at least this large get locked pages of their own.
    static var largeBufferThreshold: Int { SecretCrypto.secureMemoryByteCount / 16 }

    /// The share of the pool that session keys may not take.
    static var sessionReserve: Int { SecretCrypto.secureMemoryByteCount / 4 }

    // MARK: - Allocation

    /// Reserves `size` bytes (at least 1) of secure memory. The contents are undefined.
    /// - Throws: ``CryptoError/secureMemoryExhausted`` when the pool has no room, or the pages cannot be locked.
    ///
    /// The corresponding C functions are `gcry_malloc_secure`, `mmap` and `mlock`.
    static func allocate(_ size: Int) throws(CryptoError) -> Region {
        precondition(size > 0, "secure allocations are at least one byte")
        if size < largeBufferThreshold {
            guard let pooled = gcry_malloc_secure(size) else {
                throw CryptoError(.secureMemoryExhausted("the secure memory pool has no room for \(size) bytes"))
            }
            return Region(base: pooled, size: size, isMapping: false)
        }
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let length = (size + pageSize - 1) / pageSize * pageSize
        guard let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              mapped != UnsafeMutableRawPointer(bitPattern: -1)
        else {
            throw CryptoError(.secureMemoryExhausted("no memory for a \(size)-byte secret"))
        }
        // A process whose pool could not be locked (a client without the allowance; see `isSecureMemoryLocked`)
        // accepts the same of its large buffers. Where the pool is locked, a large buffer must be too.
        if mlock(mapped, length) != 0 && SecretCrypto.isSecureMemoryLocked {
            munmap(mapped, length)
            throw CryptoError(.secureMemoryExhausted(
                "cannot lock a \(size)-byte secret into RAM (the memory-lock limit is reached)"))
        }
        _ = madvise(mapped, length, MADV_DONTDUMP)
        return Region(base: mapped, size: length, isMapping: true)
    }

    /// Wipes and releases `region`.
    ///
    /// The corresponding C functions are `gcry_free` and `munmap`.
    static func release(_ region: Region) {
        cgcry_wipe(region.base, region.size)
        if region.isMapping {
            munmap(region.base, region.size)
        } else {
            gcry_free(region.base)
        }
    }

    // MARK: - The pool's budget

    /// Whether the pool still has a quarter of its size free in one piece, checked by reserving and releasing it.
    ///
    /// Only this is measured, never estimated: libgcrypt does not report its pool's use, and the size of a keyed
    /// context depends on the library's version. A check, not a reservation: callers create their long-lived key
    /// first and check afterwards, so two creations at once can both be refused but never both slip past.
    ///
    /// The corresponding C functions are `gcry_malloc_secure` and `gcry_free`.
    static func sessionReserveIsFree() -> Bool {
        guard let probe = gcry_malloc_secure(sessionReserve) else { return false }
        gcry_free(probe)
        return true
    }
}

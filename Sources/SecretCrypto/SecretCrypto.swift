// SPDX-License-Identifier: Apache-2.0
// Once-per-process libgcrypt initialisation with a secure-memory pool.

internal import CGcrypt
import Synchronization

/// Process-wide setup for the SecretCrypto module.
///
/// libgcrypt must be initialised exactly once per process, before any other call. ``initialize(secureMemoryBytes:)``
/// does that; every other SecretCrypto API calls it implicitly with the default pool size, so calling it yourself is
/// only needed to choose the pool size or to surface an initialisation failure early.
public enum SecretCrypto {
    // MARK: - State

    private struct State: Sendable {
        var result: Result<Void, CryptoError>?
        var secureMemoryLocked = false
        var secureMemoryBytes = SecretCrypto.defaultSecureMemoryBytes
    }

    /// The pool size when ``initialize(secureMemoryBytes:)`` is not given one.
    public static let defaultSecureMemoryBytes = 1 << 20

    private static let state = Mutex(State())

    // MARK: - Public API

    /// Initialises libgcrypt once per process, with a secure-memory pool for keys and plaintext.
    ///
    /// Thread-safe and idempotent: the first call (explicit or implicit) decides the pool size; later calls return
    /// the first call's outcome. If another component of the process already finished libgcrypt initialisation,
    /// only the version check runs and the existing configuration is kept.
    ///
    /// If the pool cannot be locked into RAM (for example `RLIMIT_MEMLOCK` is too small) initialisation still
    /// succeeds: the memory is still wiped on release but might be swapped; ``isSecureMemoryLocked`` reports this.
    /// libgcrypt's own "using insecure memory" warning on stderr is disabled.
    /// - Parameter secureMemoryBytes: Size of the secure-memory pool (libgcrypt enforces at least 16 KiB).
    /// - Throws: ``CryptoError/initialization`` if the libgcrypt version check fails, or if this is the first call
    ///   and the size is not in `1...UInt32.max` (that failure is not remembered).
    public static func initialize(secureMemoryBytes: Int = defaultSecureMemoryBytes) throws {
        try state.withLock { state throws in
            if let result = state.result {
                return try result.get()
            }
            guard secureMemoryBytes > 0, UInt32(exactly: secureMemoryBytes) != nil else {
                // Not cached: a bad argument must not poison later, valid calls.
                throw CryptoError(.initialization("secure memory size \(secureMemoryBytes) is out of range"))
            }
            let result = performInitialization(secureMemoryBytes: secureMemoryBytes, state: &state)
            state.result = result
            try result.get()
        }
    }

    /// Whether the secure-memory pool is locked into RAM, each page from its first use on (`mlock2` succeeded).
    ///
    /// `false` before initialisation, when `RLIMIT_MEMLOCK` is too small, or when another component initialised
    /// libgcrypt first. A daemon should log a warning when this is `false`.
    public static var isSecureMemoryLocked: Bool {
        state.withLock { $0.secureMemoryLocked }
    }

    /// The size of the secure-memory pool (the default when another component initialised libgcrypt first).
    static var secureMemoryByteCount: Int {
        state.withLock { $0.secureMemoryBytes }
    }

    /// The version of the libgcrypt library loaded at run time.
    ///
    /// The corresponding C function is `gcry_check_version`.
    public static var libraryVersion: String {
        guard let version = gcry_check_version(nil) else { return "unknown" }
        return String(cString: version)
    }

    // MARK: - Implicit initialisation

    /// Initialises with the default pool size unless that already happened.
    /// - Throws: ``CryptoError/initialization`` as ``initialize(secureMemoryBytes:)`` does.
    static func ensureInitialized() throws {
        do {
            try initialize()
        } catch let error as CryptoError {
            throw error
        } catch {
            throw CryptoError(.initialization("\(error)"))
        }
    }

    /// Like ``ensureInitialized()`` for non-throwing APIs: a libgcrypt that fails its version check is a broken
    /// installation, so this stops the process with a message instead of continuing without secure memory.
    static func ensureInitializedOrTrap() {
        do {
            try ensureInitialized()
        } catch {
            fatalError("SecretCrypto: \(error)")
        }
    }

    // MARK: - libgcrypt calls

    private static func performInitialization(secureMemoryBytes: Int, state: inout State) -> Result<Void, CryptoError> {
        // gcry_check_version must run first: it initialises libgcrypt's internals and verifies that the run-time
        // library is at least the version SecretCrypto was compiled against.
        guard gcry_check_version(cgcry_header_version()) != nil else {
            let wanted = String(cString: cgcry_header_version())
            return .failure(CryptoError(.initialization("the libgcrypt library is older than \(wanted)")))
        }
        if cgcry_is_initialized() != 0 {
            return .success(())  // Someone else in the process configured libgcrypt; keep their settings.
        }
        let poolSize = UInt32(secureMemoryBytes)  // Range-checked by the caller.
        _ = cgcry_suspend_secmem_warnings()
        _ = cgcry_disable_secmem_warnings()
        // SecurePoolLock locks the pool below, as its pages are used, rather than all of it resident from the start.
        _ = cgcry_disable_pool_locking()
        let secmem = cgcry_init_secure_memory(poolSize)
        _ = cgcry_resume_secmem_warnings()
        state.secureMemoryBytes = secureMemoryBytes
        let finished = cgcry_initialization_finished()
        if cgcry_error_code(finished) != 0 {
            return .failure(CryptoError.library(code: cgcry_error_code(finished), source: "gcry_control"))
        }
        // An unlocked pool still works and is wiped on free; the daemon warns (isSecureMemoryLocked).
        state.secureMemoryLocked = cgcry_error_code(secmem) == 0 && SecurePoolLock.lockEmptyPool()
        return .success(())
    }
}

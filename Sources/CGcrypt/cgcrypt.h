// SPDX-License-Identifier: Apache-2.0
// Swift-callable shims over libgcrypt: wrappers for the variadic gcry_control and mirrors of macros and enum
// constants that the Clang importer does not bring into Swift as plain `Int32`s, and the call that locks its pool.
// Only SecretCrypto imports this.
#ifndef COFFER_CGCRYPT_H
#define COFFER_CGCRYPT_H

#include <gcrypt.h>
#include <linux/mman.h>
#include <string.h>

// MARK: - Version

/// The header version SecretCrypto was compiled against (mirror of the `GCRYPT_VERSION` string macro).
static inline const char *cgcry_header_version(void) { return GCRYPT_VERSION; }

/// Mirror of `GCRYPT_VERSION_NUMBER` (0xMMmmpp).
static const unsigned int cgcry_header_version_number = GCRYPT_VERSION_NUMBER;

// MARK: - gcry_control (variadic, so not importable)

/// `gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P)`: non-zero once somebody finished initialisation.
static inline int cgcry_is_initialized(void) {
    return gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P) ? 1 : 0;
}

/// `gcry_control(GCRYCTL_SUSPEND_SECMEM_WARN)`.
/// `gcry_mac_reset`, a macro in gcrypt.h: readies a keyed MAC handle for the next message, keeping its key.
static inline gcry_error_t cgcry_mac_reset(gcry_mac_hd_t handle) {
    return gcry_mac_ctl(handle, GCRYCTL_RESET, NULL, 0);
}

static inline gcry_error_t cgcry_suspend_secmem_warnings(void) {
    return gcry_control(GCRYCTL_SUSPEND_SECMEM_WARN);
}

/// `gcry_control(GCRYCTL_RESUME_SECMEM_WARN)`.
static inline gcry_error_t cgcry_resume_secmem_warnings(void) {
    return gcry_control(GCRYCTL_RESUME_SECMEM_WARN);
}

/// `gcry_control(GCRYCTL_DISABLE_SECMEM_WARN)`: libgcrypt must not print "using insecure memory" to stderr;
/// SecretCrypto reports the lock state to its caller instead.
static inline gcry_error_t cgcry_disable_secmem_warnings(void) {
    return gcry_control(GCRYCTL_DISABLE_SECMEM_WARN);
}

/// `gcry_control(GCRYCTL_INIT_SECMEM, size, 0)`. libgcrypt returns GPG_ERR_GENERAL when the pool was created
/// but could not be locked into RAM (mlock failed, e.g. RLIMIT_MEMLOCK too small); the pool is still usable.
static inline gcry_error_t cgcry_init_secure_memory(unsigned int size) {
    return gcry_control(GCRYCTL_INIT_SECMEM, size, 0);
}

/// `gcry_control(GCRYCTL_DISABLE_LOCKED_SECMEM)`: the pool is created without libgcrypt's own `mlock`, which would
/// make every page of it resident at once; SecretCrypto locks the pool itself, page by page as it is used.
static inline gcry_error_t cgcry_disable_pool_locking(void) {
    return gcry_control(GCRYCTL_DISABLE_LOCKED_SECMEM);
}

/// `gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0)`.
static inline gcry_error_t cgcry_initialization_finished(void) {
    return gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
}

// MARK: - Locking memory on first use

/// glibc's mlock2 (since 2.27), declared only under _GNU_SOURCE, which Swift's Glibc module is built without; this
/// is that declaration.
int mlock2(const void *address, size_t length, unsigned int flags);

/// `mlock2(address, length, MLOCK_ONFAULT)`: locks the range, each page as it is first touched, so pages never
/// used take no memory while every page that holds data can never be swapped. Returns 0 on success.
static inline int cgcry_lock_on_fault(const void *address, size_t length) {
    return mlock2(address, length, MLOCK_ONFAULT);
}

// MARK: - Errors (gpg-error inline functions, mirrored so Swift sees plain integers)

/// The error code part of a `gcry_error_t` (0 means success).
static inline int cgcry_error_code(gcry_error_t err) { return (int)gcry_err_code(err); }

/// The error source part of a `gcry_error_t`.
static inline int cgcry_error_source(gcry_error_t err) { return (int)gcry_err_source(err); }

/// `GPG_ERR_ENOMEM`: what gcry_cipher_open and gcry_mac_open return when the secure pool has no room left.
static const int cgcry_err_enomem = GPG_ERR_ENOMEM;

/// `GPG_ERR_CHECKSUM`: what gcry_cipher_checktag returns when the tag does not match.
static const int cgcry_err_checksum = GPG_ERR_CHECKSUM;

// MARK: - Algorithm, mode and flag mirrors (enum constants import as non-Int32 types)

static const int cgcry_cipher_aes128 = GCRY_CIPHER_AES128;
static const int cgcry_cipher_aes256 = GCRY_CIPHER_AES256;
static const int cgcry_cipher_mode_cbc = GCRY_CIPHER_MODE_CBC;
static const int cgcry_cipher_mode_gcm = GCRY_CIPHER_MODE_GCM;
static const unsigned int cgcry_cipher_secure = GCRY_CIPHER_SECURE;
static const int cgcry_mac_hmac_sha256 = GCRY_MAC_HMAC_SHA256;
static const unsigned int cgcry_mac_flag_secure = GCRY_MAC_FLAG_SECURE;
static const int cgcry_kdf_argon2 = GCRY_KDF_ARGON2;
static const int cgcry_kdf_argon2id = GCRY_KDF_ARGON2ID;
static const int cgcry_mpi_fmt_usg = GCRYMPI_FMT_USG;
static const int cgcry_mpi_flag_secure = GCRYMPI_FLAG_SECURE;
static const int cgcry_strong_random = GCRY_STRONG_RANDOM;
static const int cgcry_md_sha256 = GCRY_MD_SHA256;
static const int cgcry_md_md5 = GCRY_MD_MD5;
static const int cgcry_kdf_pbkdf2 = GCRY_KDF_PBKDF2;
static const int cgcry_md_sha1 = GCRY_MD_SHA1;
static const int cgcry_md_sha224 = GCRY_MD_SHA224;
static const int cgcry_md_sha384 = GCRY_MD_SHA384;
static const int cgcry_md_sha512 = GCRY_MD_SHA512;
static const int cgcry_cipher_aes192 = GCRY_CIPHER_AES192;

/// `GPG_ERR_BAD_SIGNATURE`: what gcry_pk_verify returns for a signature that does not match.
static const int cgcry_err_bad_signature = GPG_ERR_BAD_SIGNATURE;

// MARK: - Typed wrappers for functions that take enum parameters

/// `gcry_randomize(buffer, length, GCRY_STRONG_RANDOM)`.
static inline void cgcry_randomize_strong(void *buffer, size_t length) {
    gcry_randomize(buffer, length, GCRY_STRONG_RANDOM);
}

/// `gcry_mpi_scan(ret, GCRYMPI_FMT_USG, buffer, length, NULL)`. The result is allocated in secure memory when
/// `buffer` is in secure memory.
static inline gcry_error_t cgcry_mpi_scan_unsigned(gcry_mpi_t *ret, const void *buffer, size_t length) {
    return gcry_mpi_scan(ret, GCRYMPI_FMT_USG, buffer, length, NULL);
}

/// `gcry_mpi_print(GCRYMPI_FMT_USG, buffer, size, written, a)`: minimal unsigned big-endian bytes.
static inline gcry_error_t cgcry_mpi_print_unsigned(void *buffer, size_t size, size_t *written, gcry_mpi_t a) {
    return gcry_mpi_print(GCRYMPI_FMT_USG, (unsigned char *)buffer, size, written, a);
}

/// `gcry_mpi_get_flag(a, GCRYMPI_FLAG_SECURE)`.
static inline int cgcry_mpi_is_secure(gcry_mpi_t a) { return gcry_mpi_get_flag(a, GCRYMPI_FLAG_SECURE); }

/// `gcry_md_open(handle, algorithm, GCRY_MD_FLAG_SECURE)`: a hash context whose state lives in secure memory.
static inline gcry_error_t cgcry_md_open_secure(gcry_md_hd_t *handle, int algorithm) {
    return gcry_md_open(handle, algorithm, GCRY_MD_FLAG_SECURE);
}

/// `gcry_md_final` is a macro over `gcry_md_ctl(GCRYCTL_FINALIZE)`.
static inline void cgcry_md_final(gcry_md_hd_t handle) { gcry_md_final(handle); }

// MARK: - Memory

/// Zeroes `length` bytes at `buffer` in a way the optimiser may not remove (glibc `explicit_bzero`).
static inline void cgcry_wipe(void *buffer, size_t length) {
    if (buffer && length) explicit_bzero(buffer, length);
}

#endif

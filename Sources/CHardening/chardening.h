// SPDX-License-Identifier: Apache-2.0
// Process calls Swift cannot make directly: prctl is variadic, malloc.h (mallopt, malloc_trim) is not part of
// Swift's Glibc module, and glibc declares the spawn action below only for _GNU_SOURCE, which that module is built
// without.
#ifndef CHARDENING_H
#define CHARDENING_H

#include <malloc.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/resource.h>

/// Marks the process non-dumpable: no core files, and other same-user processes cannot ptrace it or read
/// /proc/PID/mem. Returns 0 on success.
static inline int chardening_disable_dumping(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

/// Sets the core-file size limit to zero. Returns 0 on success.
static inline int chardening_disable_core_files(void) {
    struct rlimit none = { 0, 0 };
    return setrlimit(RLIMIT_CORE, &none);
}

/// Has glibc's allocator overwrite every block it frees (M_PERTURB), so a secret that passed through ordinary
/// memory (a plain session's D-Bus message, a decoded argument) does not linger in the heap after use.
/// Returns 1 on success.
static inline int chardening_wipe_freed_memory(void) {
    return mallopt(M_PERTURB, 0x5a);
}

/// Has every thread allocate from glibc's one main arena (M_ARENA_MAX). By default each thread that allocates gets
/// an arena of its own, whose heap keeps its touched and freed pages; the daemon's few threads mostly wait, so the
/// arenas would cost memory and spare almost no lock contention (each thread's cache serves small blocks without
/// the lock). A thread that allocated before keeps its arena, so this belongs before the daemon starts its
/// threads. Returns 1 on success.
static inline int chardening_use_one_malloc_arena(void) {
    return mallopt(M_ARENA_MAX, 1);
}

/// Adds a posix_spawn file action that closes every descriptor from `from` up in the child. glibc has it since 2.34
/// but declares it only under _GNU_SOURCE; this is that declaration. Returns 0 on success.
int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

/// Hands the heap's free memory back to the kernel, so the resident size is what the process still uses.
/// The corresponding C function is `malloc_trim`.
static inline void chardening_return_freed_memory(void) {
    (void) malloc_trim(0);
}

#endif

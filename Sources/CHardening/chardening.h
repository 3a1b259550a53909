// SPDX-License-Identifier: Apache-2.0
// Process calls Swift cannot make directly: prctl is variadic, malloc.h (mallopt, malloc_trim) is not part of
// Swift's Glibc module, glibc declares the spawn action below only for _GNU_SOURCE, which that module is built
// without, and dl_iterate_phdr hands a C callback ELF structures (link.h) that Swift's Glibc module leaves out.
#ifndef CHARDENING_H
#define CHARDENING_H

#include <dlfcn.h>
#include <link.h>
#include <malloc.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
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

/// The leading members of glibc's `struct dl_phdr_info`, the part that has not changed since it was introduced;
/// link.h defines the struct, and dl_iterate_phdr, only under _GNU_SOURCE. Declared under names of this shim's own
/// (the asm label binds glibc's symbol), so nothing clashes where link.h does define them.
struct chardening_object_info {
    ElfW(Addr) dlpi_addr;
    const char *dlpi_name;
    const ElfW(Phdr) *dlpi_phdr;
    ElfW(Half) dlpi_phnum;
};
int chardening_dl_iterate_phdr(int (*callback)(struct chardening_object_info *, size_t, void *), void *data)
    __asm__("dl_iterate_phdr");

/// Whether a loaded object was linked with text relocations: the loader then wrote into its read-only segments,
/// and those pages exist nowhere but in memory.
static inline int chardening_has_text_relocations(const struct chardening_object_info *info) {
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
        for (const ElfW(Dyn) *entry = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
             entry->d_tag != DT_NULL; entry++) {
            if (entry->d_tag == DT_TEXTREL || (entry->d_tag == DT_FLAGS && (entry->d_un.d_val & DF_TEXTREL))) return 1;
        }
    }
    return 0;
}

/// dl_iterate_phdr's callback for chardening_release_loaded_pages: advises away each read-only load segment.
static inline int chardening_release_object_pages(struct chardening_object_info *info, size_t size, void *advised) {
    (void) size;
    if (chardening_has_text_relocations(info)) return 0;
    uintptr_t page = (uintptr_t) sysconf(_SC_PAGESIZE);
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
        // Writable segments hold data, and the relocation read-only part (PT_GNU_RELRO) lies inside one of them.
        if (segment->p_type != PT_LOAD || (segment->p_flags & PF_W) || segment->p_memsz == 0) continue;
        uintptr_t start = (info->dlpi_addr + segment->p_vaddr) & ~(page - 1);
        uintptr_t end = (info->dlpi_addr + segment->p_vaddr + segment->p_memsz + page - 1) & ~(page - 1);
        if (madvise((void *) start, end - start, MADV_DONTNEED) == 0) *(size_t *) advised += end - start;
    }
    return 0;
}

/// Unmaps the pages of the read-only segments (code, constants, symbol and unwind tables) of the program and of
/// every shared object the loader mapped, with madvise(MADV_DONTNEED). Those mappings are private and backed by
/// their files, and nothing writes to them, so a dropped page is read back from the page cache unchanged at its
/// next use. Only the loader's own segments are touched, found under the loader's lock (dl_iterate_phdr), so no
/// other mapping can be caught while it is being unmapped or reused. Returns the bytes of address space advised
/// (none under AddressSanitizer or ThreadSanitizer, below).
static inline size_t chardening_release_loaded_pages(void) {
    // A sanitizer's build only runs the tests, where the release frees nothing that matters, and its instrumented
    // code is several times larger: mapping it back after every test daemon's start is only extra work for suites
    // that run close to their time limits. dlsym(NULL, …) is RTLD_DEFAULT, the whole process.
    if (dlsym(NULL, "__asan_init") != NULL || dlsym(NULL, "__tsan_init") != NULL) return 0;
    size_t advised = 0;
    (void) chardening_dl_iterate_phdr(chardening_release_object_pages, &advised);
    return advised;
}

#endif

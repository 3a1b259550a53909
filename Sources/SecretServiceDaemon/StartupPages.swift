// SPDX-License-Identifier: Apache-2.0
// The pages of code and read-only data that only start-up used, handed back once the daemon serves.

import CHardening

/// Start-up runs far more code than serving does (argument parsing, configuration, verifying and decoding the
/// collection files, libgcrypt's self-tests, the key derivation), and every page it ran stays mapped: the kernel maps
/// the page cache's neighbours of each page a fault needs (fault-around, 64 KiB), so a fresh daemon keeps most of
/// its binary and libraries resident although a lookup runs a small part of them. Once start-up is over,
/// ``release()`` unmaps the read-only load segments of the program and its shared libraries
/// (`chardening_release_loaded_pages`); the calls that follow map back, at a minor fault from the page cache, only
/// what they run. Nothing is lost: such a page holds exactly what its file holds.
///
/// Only the loader's own segments qualify, found under the loader's lock: a mapping made and unmapped at run time
/// (a file another part of the process maps to read it) is never touched, so no address can be advised after it has
/// been reused for other memory. Writable segments, the relocation read-only part inside them, objects with text
/// relocations, the heap, the secure-memory pool and every other anonymous mapping are left as they are.
enum StartupPages {
    /// Unmaps the read-only load segments' pages.
    /// - Returns: the bytes of address space advised.
    @discardableResult
    static func release() -> Int {
        Int(chardening_release_loaded_pages())
    }
}

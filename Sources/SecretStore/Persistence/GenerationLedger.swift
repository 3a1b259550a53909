// SPDX-License-Identifier: Apache-2.0
// Remembers each collection's latest generation, so an older copy of a file put back is recognised.

#if canImport(Glibc)
import Glibc
#endif

/// An append-only list of `id generation` lines in `<dir>/generations`; the highest generation per id counts.
/// Appending one line and syncing costs the same whatever the collections hold; the list is rewritten compactly
/// once it grows long.
final class GenerationLedger {
    private let path: String
    private let directory: String
    private(set) var generations: [String: UInt64] = [:]
    private var lines = 0
    private var fd: Int32 = -1

    static let compactionThreshold = 4096

    init(directory: String) throws {
        self.directory = directory
        path = directory + "/generations"
        if let bytes = try POSIXFile.read(path) {
            // A torn last line (a crash while appending) has no newline yet and is ignored.
            for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast() {
                let fields = line.split(separator: UInt8(ascii: " "))
                guard fields.count == 2, let id = String(validating: fields[0], as: UTF8.self),
                      let generation = UInt64(String(decoding: fields[1], as: UTF8.self))
                else { continue }
                generations[id] = max(generations[id] ?? 0, generation)
                lines += 1
            }
        }
        // Compact now if we may; on a read-only directory the list still serves its reader, and the rewrite waits
        // for the first write (which then fails with the system's reason).
        try? rewrite(generations)
    }

    deinit { if fd >= 0 { close(fd) } }

    /// The last generation recorded for `id` (0 when none).
    func generation(of id: String) -> UInt64 { generations[id] ?? 0 }

    /// Records `generation` for `id` durably.
    func record(_ id: String, _ generation: UInt64) throws {
        if fd < 0 || lines >= Self.compactionThreshold {
            var updated = generations
            updated[id] = generation
            try rewrite(updated)
            return
        }
        try POSIXFile.writeAll(fd, Array("\(id) \(generation)\n".utf8), path: path)
        try POSIXFile.sync(fd, path: path)
        generations[id] = generation
        lines += 1
    }

    /// Forgets a deleted collection.
    func forget(_ id: String) throws {
        var updated = generations
        updated[id] = nil
        try rewrite(updated)
    }

    /// Writes one line per collection atomically and reopens for appending; memory changes only once it worked.
    private func rewrite(_ generations: [String: UInt64]) throws {
        let text = generations.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)\n" }.joined()
        try POSIXFile.replace(path, with: Array(text.utf8), directory: directory)
        if fd >= 0 { close(fd) }
        fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { throw StorageError("cannot open", path) }
        self.generations = generations
        lines = generations.count
    }
}

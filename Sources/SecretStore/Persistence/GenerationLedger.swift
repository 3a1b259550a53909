// SPDX-License-Identifier: Apache-2.0
// Remembers each collection's latest generation, so an older copy of a file put back is recognised.

#if canImport(Glibc)
import Glibc
#endif
import SecretServiceProtocol

/// An append-only list of `id generation` lines in `<dir>/generations`; the highest generation per id counts.
/// Appending one line and syncing costs the same whatever the collections hold; the list is rewritten compactly
/// once it grows long.
final class GenerationLedger {
    private let path: String
    private let directory: String
    private(set) var generations: [String: UInt64] = [:]
    /// Lines that could not be used when the file was read, described without their contents.
    private(set) var problems: [String] = []
    private var lines = 0
    private var fd: Int32 = -1

    static let compactionThreshold = 4096

    init(directory: String) throws {
        self.directory = directory
        path = directory + "/" + Self.fileName
        if let bytes = try POSIXFile.read(path) {
            let parsed = Self.parse(bytes)
            generations = parsed.generations
            problems = parsed.problems
            lines = parsed.generations.count + parsed.problems.count
        }
        // Compact now if we may, unless some line could not be used: that file stays as it is for `coffer doctor`
        // and a person to look at until the next write rewrites it. On a read-only directory the list still serves
        // its reader, and the rewrite waits for the first write (which then fails with the system's reason).
        if problems.isEmpty { try? rewrite(generations) }
    }

    static let fileName = "generations"

    /// Reads `id generation` lines. A line that is not exactly a valid collection id, one space and a decimal number
    /// is reported, never guessed at; a torn last line (a crash while appending: no newline yet) is ignored.
    static func parse(_ bytes: [UInt8]) -> (generations: [String: UInt64], problems: [String]) {
        var generations: [String: UInt64] = [:]
        var problems: [String] = []
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast()
        for (number, line) in lines.enumerated() {
            let fields = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
            guard fields.count == 2, let id = String(validating: fields[0], as: UTF8.self),
                  ObjectPathElement.isValid(id), !fields[1].isEmpty, fields[1].count <= 20,
                  fields[1].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                  let generation = UInt64(String(decoding: fields[1], as: UTF8.self))
            else {
                problems.append("line \(number + 1) is not '<collection id> <generation>'")
                continue
            }
            generations[id] = max(generations[id] ?? 0, generation)
        }
        return (generations, problems)
    }

    deinit { if fd >= 0 { close(fd) } }

    /// The last generation recorded for `id` (0 when none).
    func generation(of id: String) -> UInt64 { generations[id] ?? 0 }

    /// Records `generation` for `id`. Call it only once the record that reached the generation is durable: a ledger
    /// ahead of its file would make that file look like an older copy put back.
    /// - Returns: a duplicate of the ledger's descriptor for a ``FileSyncer`` to make the line durable, or `nil` when
    ///   the list was rewritten (and synced) whole instead.
    func record(_ id: String, _ generation: UInt64) throws -> Int32? {
        if fd < 0 || lines >= Self.compactionThreshold {
            var updated = generations
            updated[id] = max(generation, generations[id] ?? 0)
            try rewrite(updated)
            return nil
        }
        let handle = dup(fd)
        guard handle >= 0 else { throw StorageError("cannot duplicate the descriptor of", path) }
        do {
            try POSIXFile.writeAll(fd, Array("\(id) \(generation)\n".utf8), path: path)
        } catch {
            close(handle)
            throw error
        }
        generations[id] = max(generation, generations[id] ?? 0)
        lines += 1
        return handle
    }

    /// Records `generation` for `id` and syncs it before returning, for the rare writes that replace whole files.
    func recordNow(_ id: String, _ generation: UInt64) throws {
        guard let handle = try record(id, generation) else { return }
        defer { close(handle) }
        try POSIXFile.sync(handle, path: path)
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
        problems = []
        lines = generations.count
    }
}

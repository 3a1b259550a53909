// SPDX-License-Identifier: Apache-2.0
// The access log: every access decision appended, sealed per collection, to a bounded file in the data directory.

import Logging
import SecretCrypto
import SecretStore

/// Owns the access log (docs/ACCESS-CONTROL.md, "The access log").
///
/// `access.log` in the data directory (0600, like the collection files) holds one sealed record per
/// ``AccessLogEntry`` (``AccessLogRecord``): AES-256-GCM under the log key of the entry's collection, which the
/// store derives from the collection's master key, so only someone who can unlock the collection reads its entries,
/// and chained (each record's associated data holds the file's id, the record's index and the tag of the
/// collection's previous record), so changing, removing or reordering records is found when the log is read.
/// Entries that concern no collection with a key (another user's call, an in-memory collection, one deleted since)
/// are sealed with the `login` collection's key. An entry whose key is not at hand (its collection is locked)
/// waits in memory until it is.
///
/// Decisions are rare (each is a question to the user, a change by `coffer access`, or a first refusal per
/// connection) and synced before their answer; uses (every allowed read, change and delete) are many, and are
/// written in batches (``noteUses(_:)``): the uses of one item by one process in a batch are one entry with a count,
/// and a record holds many entries. A crash can only cut the last record short; it is cut off when the file is
/// opened again. When the file would pass ``maximumBytes`` it is renamed to `access.log.1` (replacing the one
/// before) and a new file starts. Without a data directory the newest entries are kept in memory.
actor AccessLog {
    static let fileName = "access.log"
    static let rotatedSuffix = ".1"
    /// Large enough for thousands of entries, small enough to read whole for `coffer access log`.
    static let defaultMaximumBytes = 256 * 1024

    /// Where the log asks for a collection's key (``SecretStore/accessLogKey(of:)``).
    typealias KeySource = @Sendable (String) async -> CollectionLogKey

    /// `nil` keeps the log in memory.
    let path: String?
    let maximumBytes: Int
    /// The collection whose key seals entries that concern no collection with a key of its own.
    let fallbackCollection: String
    private let keys: KeySource
    /// Every collection there is: a reading asks all their keys, so a record whose collection name was changed is
    /// still found by its key id, and reported, rather than counted as one of a deleted collection.
    private let collections: @Sendable () async -> [String]
    private let logger: Logger
    private var file: AccessLogFile?
    /// The entries of a log without a file, newest last; bounded like the file.
    private var memory: [AccessLogEntry] = []
    /// Uses noted and not yet written, oldest first (``noteUses(_:)``).
    private var unwritten: [AccessLogEntry] = []
    private var flushScheduled = false
    /// Entries whose key is not at hand (their collection is locked), oldest first; bounded like ``memory``.
    private var waiting: [AccessLogEntry] = []
    /// The key each collection's records were last sealed with this run: when it changes, the old key is written
    /// sealed under the new one, so older records still open. A password change writes its record itself, before
    /// the change (``keyChanged(of:from:to:)``).
    private var lastKeys: [String: AccessLogKey] = [:]
    /// Repairs made when the file was opened, reported with every reading until cofferd restarts.
    private var repairs: [String] = []
    /// Whether plain-text logs of earlier versions were looked for (once, before the files are first used).
    private var checkedUnsealed = false

    /// - Parameters:
    ///   - directory: the data directory; `nil` keeps the log in memory.
    ///   - maximumBytes: the size at which the file is rotated.
    ///   - fallbackCollection: the collection whose key seals entries of no collection with a key.
    ///   - keys: the log key of a collection, asked for each batch (never kept past it but to seal a key change).
    ///   - collections: every collection there is.
    init(directory: String?, maximumBytes: Int = AccessLog.defaultMaximumBytes, fallbackCollection: String = "login",
         keys: @escaping KeySource, collections: @escaping @Sendable () async -> [String], logger: Logger) {
        path = directory.map { $0 + "/" + Self.fileName }
        self.maximumBytes = maximumBytes
        self.fallbackCollection = fallbackCollection
        self.keys = keys
        self.collections = collections
        self.logger = logger
    }

    /// Appends a decision (after the uses noted before it) and syncs it before returning. A failure to write is
    /// reported in cofferd's log and does not change the decision.
    func record(_ entry: AccessLogEntry) async {
        guard path != nil else { return remember(entry) }
        let earlier = AccessLogEntry.aggregated(unwritten)
        unwritten = []
        await write(earlier + [entry], durable: true)
    }

    /// Notes uses (reads, changes or deletes that were allowed). Uses are many (every lookup), so they are written in
    /// batches, at most once per ``useBatchInterval``, off the thread that answers calls, and not synced on their
    /// own: a crash can lose the uses of its last moments, while every decision is durable before its answer.
    func noteUses(_ entries: [AccessLogEntry]) {
        guard path != nil else { return entries.forEach(remember) }
        unwritten += entries
        guard !flushScheduled else { return }
        flushScheduled = true
        // Detached: no executor preference, so the sealing and the write run on the global pool, not on the bus loop.
        Task.detached(priority: .utility) { [self] in
            try? await Task.sleep(for: Self.useBatchInterval)
            await flushUses()
        }
    }

    /// How long noted uses wait to be written together: a client looking secrets up in a loop costs a write per
    /// interval, not per lookup.
    static let useBatchInterval: Duration = .milliseconds(200)

    /// Writes the uses noted so far, and the entries waiting for a key that is now at hand.
    func flushUses() async {
        flushScheduled = false
        let batch = AccessLogEntry.aggregated(unwritten)
        unwritten = []
        guard !batch.isEmpty || !waiting.isEmpty else { return }
        await write(batch, durable: false)
    }

    private func remember(_ entry: AccessLogEntry) {
        memory.append(entry)
        if memory.count > maximumBytes / 64 { memory.removeFirst(memory.count - maximumBytes / 64) }
    }

    private func write(_ entries: [AccessLogEntry], durable: Bool) async {
        guard path != nil else { return }
        let batch = waiting + entries
        waiting = []
        // Every key first: the actor takes other calls while it waits for the store, so the file's state is only
        // read and changed below, without a suspension.
        var known: [String: CollectionLogKey] = [:]
        for name in Set(batch.map(\.collection) + [fallbackCollection]) where !name.isEmpty {
            known[name] = await keys(name)
        }
        var ready: [String: AccessLogKey] = [:]
        for case (let name, .available(let secret)) in known { ready[name] = try? AccessLogKey(secret) }
        // Consecutive entries sealed with the same key share a record, up to a size: one seal per batch, not one
        // per entry, while the order of the entries stays the order they happened in.
        var sealings: [Sealing] = []
        for entry in batch {
            let collection: String
            if ready[entry.collection] != nil {
                collection = entry.collection
            } else if case .locked = known[entry.collection] {
                waiting.append(entry)
                continue
            } else if ready[fallbackCollection] != nil {
                collection = fallbackCollection
            } else {
                waiting.append(entry)
                continue
            }
            if let last = sealings.last, last.collection == collection, last.lines.count < linesPerRecord {
                entry.appendLine(to: &sealings[sealings.count - 1].lines)
            } else if let key = ready[collection] {
                sealings.append(Sealing(lines: entry.line, collection: collection, key: key))
            }
        }
        let limit = maximumBytes / 64
        if waiting.count > limit {
            logger.warning("access log entries waiting for a locked keyring were dropped",
                           metadata: ["count": "\(waiting.count - limit)"])
            waiting.removeFirst(waiting.count - limit)
        }
        commit(sealings, durable: durable)
    }

    /// One record to seal: entry lines, or none when only a key change is to be written.
    private struct Sealing {
        var lines: [UInt8]
        var collection: String
        var key: AccessLogKey
    }

    /// The bytes of entry lines a record takes before the next record starts: large enough that sealing costs
    /// little per entry, small against the file's bound, so rotation still keeps most of a file's entries.
    private var linesPerRecord: Int { max(256, min(16 * 1024, maximumBytes / 16)) }

    /// A collection's master key is about to be replaced: its previous key is written, sealed with the new one (a
    /// key-change record), and synced, so older records still open, also after a restart and while the collection
    /// is locked. The store waits for this before the file with the new key replaces the old: written after, a crash
    /// in between would leave the older records sealed with a key nothing opens. A record of a change that never
    /// took place is sealed with a key nobody holds, and readers pass over it.
    /// - Throws: when the record cannot be written; the store then keeps the old key.
    func keyChanged(of collection: String, from old: SecretBytes, to new: SecretBytes) throws {
        guard let path else { return }
        let previous = try AccessLogKey(old), current = try AccessLogKey(new)
        guard [path, path + Self.rotatedSuffix].contains(where: AccessLogFile.exists) else {
            // No file, no older record to keep readable (access control was never on): none is made for the change.
            // A first batch sealed with the old key may still be on its way; the next record then carries the key.
            lastKeys[collection] = previous
            return
        }
        lastKeys[collection] = previous
        // Forgotten after: the next record needs no key change before it, whichever key seals it. A record the old
        // key seals may still follow (its key was asked for before the change), and must not seal the new key, which
        // would let the old password read what is written from now on.
        defer { lastKeys[collection] = nil }
        try commit([Sealing(lines: [], collection: collection, key: current)], durable: true, at: path)
    }

    /// Seals and writes, without a suspension: nothing else touches the file meanwhile. A failure is reported in
    /// cofferd's log only: a decision stands, and its entry is not kept for a later try.
    private func commit(_ sealings: [Sealing], durable: Bool) {
        guard let path, !sealings.isEmpty else { return }
        try? commit(sealings, durable: durable, at: path)
    }

    private func commit(_ sealings: [Sealing], durable: Bool, at path: String) throws {
        setAsideUnsealed(path)
        var file = self.file ?? AccessLogFile(path: path, maximumBytes: maximumBytes)
        defer { self.file = file }
        do {
            if !file.isOpen, let repair = try file.open() { noteRepair(repair) }
            try append(sealings, to: &file, durable: durable)
        } catch {
            logger.error("the access log could not be written", metadata: ["path": "\(path)", "error": "\(error)"])
            file.close()  // the next entry opens (and repairs) the file again
            throw error
        }
    }

    /// Seals and writes, rotating when the next record would pass the bound.
    private func append(_ sealings: [Sealing], to file: inout AccessLogFile, durable: Bool) throws {
        var records: [AccessLogRecord] = []
        var chains: [String: AccessLogFile.Chain] = [:]
        var bytes = 0
        for sealing in sealings {
            let (lines, collection, key) = (sealing.lines, sealing.collection, sealing.key)
            var payloads: [(AccessLogRecord.Kind, SecretBytes)] = []
            if let last = lastKeys[collection], last.id != key.id { payloads.append((.keyChange, last.secret)) }
            lastKeys[collection] = key
            if !lines.isEmpty { payloads.append((.entry, try SecretBytes(copying: lines))) }
            for (kind, payload) in payloads {
                func sealed() throws -> AccessLogRecord {
                    try file.seal(kind, collection: collection, key: key, payload: payload, after: chains,
                                  index: file.upcomingIndex + UInt64(records.count))
                }
                var record = try sealed()
                if file.wouldOverflow(adding: record.encoded.count, after: bytes) {
                    try file.write(records, durable: false)
                    try file.rotate()
                    (records, chains, bytes) = ([], [:], 0)
                    record = try sealed()  // a new file: a new id and new chains
                }
                records.append(record)
                chains[collection] = AccessLogFile.Chain(sequence: record.sequence, tag: record.tag)
                bytes += record.encoded.count
            }
        }
        try file.write(records, durable: durable)
    }

    private func setAsideUnsealed(_ path: String) {
        guard !checkedUnsealed else { return }
        checkedUnsealed = true
        for file in AccessLogFile.setAsideUnsealed(path) {
            logger.notice("a plain-text access log of an earlier version was set aside",
                          metadata: ["path": "\(file).unsealed"])
        }
    }

    private func noteRepair(_ repair: String) {
        logger.warning("the access log was repaired", metadata: ["repair": "\(repair)"])
        repairs.append(repair)
    }

    /// The entries at or after `since` (seconds since 1970) that the unlocked collections open, oldest first, with
    /// how many it could not open and what was found wrong.
    func entries(since: UInt64 = 0) async -> AccessLogReading {
        await flushUses()
        guard let path else { return AccessLogReading(entries: memory.filter { $0.time >= since }) }
        setAsideUnsealed(path)
        var files: [AccessLogReader.File] = []
        for name in [Self.fileName + Self.rotatedSuffix, Self.fileName] {
            let full = String(path.dropLast(Self.fileName.count)) + name
            files.append(AccessLogReader.File(name: name, bytes: AccessLogFile.read(full) ?? []))
        }
        var reader = AccessLogReader(keys: [:], lockedCollections: [])
        for collection in AccessLogReader.collections(in: files).union(await collections()) {
            switch await keys(collection) {
            case .available(let key):
                reader.keys[collection] = key
                if lastKeys[collection] == nil { lastKeys[collection] = try? AccessLogKey(key) }
            case .locked: reader.lockedCollections.insert(collection)
            case .absent: break
            }
        }
        var reading = reader.read(files, since: since)
        reading.problems = repairs + reading.problems + outsideChanges(current: files[1].bytes)
        return reading
    }

    /// Whether the current file is still the one cofferd writes, as long as cofferd wrote it: a file replaced or
    /// cut from outside while cofferd runs shows no other trace (its last records would simply be gone).
    private func outsideChanges(current bytes: [UInt8]) -> [String] {
        guard var file, file.isOpen else { return [] }
        var problems: [String] = []
        if AccessLogFormat.fileID(ofHeader: bytes[...]) != file.fileID {
            problems.append("\(Self.fileName) was replaced while cofferd was running")
        } else if bytes.count < file.size {
            problems.append("\(Self.fileName) is \(file.size - bytes.count) bytes shorter than cofferd wrote it:"
                            + " records were cut off its end")
        }
        if !problems.isEmpty {
            file.close()  // appending goes on in a file opened (and repaired) anew
            self.file = file
        }
        return problems
    }
}

// SPDX-License-Identifier: Apache-2.0
// Loading collection files, writing records durably, compaction, and deleting files.

#if canImport(Glibc)
import Glibc
#endif
import Logging
import SecretCrypto
public import SecretServiceProtocol

/// A collection file that could not be opened, and why.
public struct UnavailableCollection: Sendable, Hashable {
    public var id: String
    public var path: String
    public var reason: String
}

extension SecretStore {
    static let fileSuffix = ".coffer"

    func path(of id: String) -> String? { directory.map { $0 + "/" + id + Self.fileSuffix } }

    /// Reads every collection file in the data directory, locked. Files that fail structural checks are left
    /// untouched and reported; the rest become available collections.
    /// - Returns: the files that could not be opened.
    public func loadCollections() throws(SecretServiceError) -> [UnavailableCollection] {
        guard let directory else { return [] }
        do {
            try POSIXFile.ensureDirectory(directory)
            ledger = try GenerationLedger(directory: directory)
            try loadAliases()
        } catch {
            throw .failed("cannot use the data directory: \(error)")
        }
        var problems: [UnavailableCollection] = []
        for name in Self.fileNames(in: directory) where name.hasSuffix(Self.fileSuffix) {
            let id = String(name.dropLast(Self.fileSuffix.count))
            let path = directory + "/" + name
            do {
                let state = try loadLocked(path: path, expectedID: id)
                state.isLocked = true
                collections[id] = state
            } catch {
                unavailable[id] = "\(error)"
                problems.append(UnavailableCollection(id: id, path: path, reason: "\(error)"))
            }
        }
        return problems
    }

    /// Collections whose files failed to open.
    public func unavailableCollections() -> [UnavailableCollection] {
        unavailable.sorted { $0.key < $1.key }.map {
            UnavailableCollection(id: $0.key, path: path(of: $0.key) ?? "", reason: $0.value)
        }
    }

    /// Builds a locked collection from a file's structure: ids, tags and sealed blobs.
    func loadLocked(path: String, expectedID: String) throws -> CollectionState {
        guard let bytes = try POSIXFile.read(path) else { throw StorageError(message: "the file vanished") }
        let parsed = try Journal.parse(bytes)
        guard parsed.header.id == expectedID else { throw FormatError("the file belongs to collection \(parsed.header.id)") }
        try checkGeneration(parsed, id: expectedID)
        var wrap: KeyWrap?
        var label = expectedID
        var modified = parsed.header.created
        var items: [String: StoredItem] = [:]
        for frame in parsed.frames {
            switch frame.record {
            case .keyWrap(let newWrap): wrap = newWrap
            case .collection(let newLabel, let when):
                label = newLabel
                modified = max(modified, when)
            case .item(let record):
                items[record.id] = StoredItem(id: record.id, sequence: record.sequence, meta: nil, sealedMeta: record.meta,
                                              secret: record.secret, tags: record.tags)
            case .delete(let id): items[id] = nil
            }
        }
        guard let wrap else { throw FormatError("the file holds no key") }
        let file = CollectionFile(path: path, header: parsed.header, indexKey: try SecretBytes(copying: parsed.header.indexKey),
                                  keyWrap: wrap, writer: nil, recordCount: parsed.frames.count)
        let state = CollectionState(id: expectedID, label: label, created: parsed.header.created, modified: modified,
                                    vault: nil, file: file)
        for item in items.values { state.insert(item) }
        state.nextSequence = (items.values.map(\.sequence).max() ?? 0) + 1
        return state
    }

    func checkGeneration(_ parsed: ParsedFile, id: String) throws {
        let recorded = ledger?.generation(of: id) ?? 0
        guard parsed.lastSequence >= recorded else {
            throw FormatError("the file is at generation \(parsed.lastSequence) but \(recorded) was written: "
                + "it is an older copy or was cut short")
        }
    }

    /// Appends `record` to the collection's file (when it has one) and records the new generation. Nothing in memory
    /// changes here; callers update memory only after this returns, then call ``compactIfWorthwhile(_:)`` — never
    /// before, since compaction rewrites the file from memory and would drop the change.
    /// - Throws: `failed` with the system's reason when the disk refuses the write.
    func persist(_ record: FileRecord, in state: CollectionState) throws(SecretServiceError) {
        guard let file = state.file else { return }
        guard let writer = file.writer, let keys = state.keys else { throw .isLocked("the collection is locked") }
        do {
            let generation = try writer.append(record, key: keys.authentication)
            try ledger?.record(state.id, generation)
        } catch {
            throw .failed("the change could not be saved: \(error)")
        }
        collections[state.id]?.file?.recordCount += 1
    }

    /// Rewrites the file with only its live records once superseded ones dominate, so a file's size tracks its
    /// contents. Costs one full write, amortised over at least as many appends.
    func compactIfWorthwhile(_ id: String) {
        guard let state = collections[id], let file = state.file, let keys = state.keys, let writer = file.writer,
              let directory else { return }
        let live = state.items.count + 2
        guard file.recordCount > 256, file.recordCount > 2 * live else { return }
        var records: [FileRecord] = [.keyWrap(file.keyWrap), .collection(label: state.label, modified: state.modified)]
        for item in state.items.values.sorted(by: { $0.sequence < $1.sequence }) {
            guard let meta = item.sealedMeta else { return }
            records.append(.item(ItemRecord(id: item.id, sequence: item.sequence, tags: item.tags, meta: meta,
                                            secret: item.secret)))
        }
        let first = writer.nextSequence
        let last = first + UInt64(records.count) - 1
        guard let encoded = try? Journal.encodeFile(header: file.header, records: records, firstSequence: first,
                                                    key: keys.authentication)
        else { return }
        do {
            try POSIXFile.replace(file.path, with: encoded.bytes, directory: directory)
        } catch is DirectorySyncError {
            // The compacted file is in place; continue with it.
        } catch {
            return  // the old file is untouched and its writer still valid; compaction is retried on a later write
        }
        do {
            try ledger?.record(id, last)
            collections[id]?.file?.writer = JournalWriter(path: file.path, lastMAC: encoded.mac,
                                                               nextSequence: last + 1, length: encoded.bytes.count)
            collections[id]?.file?.recordCount = records.count
        } catch {
            // Without a writer for the new file no further change may be accepted: lock, so the next unlock
            // re-reads and verifies what is on disk.
            _ = try? setLocked(id, true)
        }
    }

    /// Deletes a collection's file and forgets its generation.
    func removeFile(_ file: CollectionFile, of id: String) throws(SecretServiceError) {
        guard unlink(file.path) == 0 || errno == ENOENT else {
            throw .failed("the collection file could not be deleted: \(StorageError("cannot delete", file.path))")
        }
        if let directory { try? POSIXFile.syncDirectory(directory) }
        try? ledger?.forget(id)
    }

    /// Takes a collection out of service after its file failed a check; the file is not touched.
    func markUnavailable(_ id: String, reason: String) {
        logger.error("collection file unavailable; it is left untouched",
                     metadata: ["secret.collection": "\(id)", "path": "\(path(of: id) ?? "-")", "reason": "\(reason)"])
        unavailable[id] = reason
        collections[id] = nil
        eventSink.yield(.collectionDeleted(id))
        eventSink.yield(.collectionsListChanged)
    }

    static func fileNames(in directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}

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

    /// Whether `directory` holds a file for collection `id`, before any store opens it (cofferd asks to confirm a
    /// password only when it will create the collection).
    public static func hasCollectionFile(_ id: String, in directory: String) -> Bool {
        POSIXFile.exists(directory + "/" + id + fileSuffix)
    }

    /// Reads every collection file in the data directory, locked. Files that fail structural checks are left
    /// untouched and reported; the rest become available collections.
    /// - Returns: the files that could not be opened.
    public func loadCollections() throws(SecretServiceError) -> [UnavailableCollection] {
        guard let directory else { return [] }
        do {
            try lockDirectory()
            ledger = try GenerationLedger(directory: directory)
            try loadAliases()
        } catch let error as DirectoryInUse {
            throw .failed("\(error)")
        } catch {
            throw .failed("cannot use the data directory: \(error)")
        }
        for problem in ledger?.problems ?? [] {
            logger.error("the generations file has a line it cannot use; it is ignored",
                         metadata: ["path": "\(directory)/generations", "reason": "\(problem)"])
        }
        var problems: [UnavailableCollection] = []
        for name in Self.fileNames(in: directory) {
            let path = directory + "/" + name
            if name.hasSuffix(POSIXFile.temporarySuffix) {
                // Left by a crash during a replace; the file it was meant to replace is intact.
                unlink(path)
                continue
            }
            guard name.hasSuffix(Self.fileSuffix) else { continue }
            let id = String(name.dropLast(Self.fileSuffix.count))
            do {
                guard ObjectPathElement.isValid(id) else {
                    throw FormatError("the file name is not a valid collection id (letters, digits and '_' only)")
                }
                guard let bytes = try POSIXFile.read(path) else { throw StorageError(message: "the file vanished") }
                let parsed = try Journal.parse(bytes)
                let state = try loadLocked(parsed, path: path, expectedID: id)
                state.file?.loadedImage = LoadedImage(parsed)
                state.isLocked = true
                collections[id] = state
            } catch {
                unavailable[id] = "\(error)"
                problems.append(UnavailableCollection(id: id, path: path, reason: "\(error)"))
            }
        }
        return problems
    }

    /// Takes the data directory (creating it) for as long as this store lives; does nothing without one or when
    /// already held. ``loadCollections()`` takes it too; a daemon calls this first, before anything else.
    /// - Throws: ``DirectoryInUse`` when another process or store holds it; an error naming the system's reason when
    ///   the directory cannot be created or locked.
    public func lockDirectory() throws {
        guard let directory, directoryLock == nil else { return }
        guard !closed else { throw StorageError(message: "the store was closed") }
        try POSIXFile.ensureDirectory(directory)
        directoryLock = try DirectoryLock(directory: directory)
    }

    /// Stops using the data directory: every persistent collection is locked (keys zeroed, files closed) and the
    /// directory is released for another store or process. The store answers reads of what it knew while locked
    /// and refuses writes afterwards. Without this the directory stays held until the store is deallocated, which
    /// an actor's last caller cannot time exactly.
    public func close() async {
        closed = true  // no compaction starts from now on
        for id in collections.keys { await waitForCompaction(of: id) }
        for id in collections.keys where collections[id]?.file != nil { _ = try? setLocked(id, true) }
        ledger = nil
        directoryLock = nil
    }

    /// The lines of the `generations` file that could not be used when it was read, described (never guessed at).
    public func ledgerProblems() -> [String] { ledger?.problems ?? [] }

    /// Collections whose files failed to open.
    public func unavailableCollections() -> [UnavailableCollection] {
        unavailable.sorted { $0.key < $1.key }.map {
            UnavailableCollection(id: $0.key, path: path(of: $0.key) ?? "", reason: $0.value)
        }
    }

    /// Builds a locked collection from a parsed file's structure: ids, tags and sealed blobs. The key wrap's cost
    /// parameters are checked here, before anything can verify them: an altered file must not be able to make an
    /// unlock run for hours or exhaust memory.
    func loadLocked(_ parsed: ParsedFile, path: String, expectedID: String) throws -> CollectionState {
        guard parsed.header.id == expectedID else { throw FormatError("the file belongs to collection \(parsed.header.id)") }
        try checkGeneration(parsed, id: expectedID)
        var slots: [UInt32: KeySlot] = [:]
        var label = expectedID
        var modified = parsed.header.created
        var items: [String: StoredItem] = [:]
        var sealedAccess: SealedBlob?
        items.reserveCapacity(parsed.frames.count)
        for frame in parsed.frames {
            switch frame.record {
            case .keyWrap(let newWrap): slots[0] = KeySlot(legacy: newWrap)
            case .keySlot(let slot): slots[slot.id] = slot
            case .collection(let newLabel, let when):
                label = newLabel
                modified = max(modified, when)
            case .item(let record):
                let sealed = try SealedItem(in: frame, record: record)
                items[record.id] = StoredItem(id: record.id, sequence: record.sequence, knownModified: nil,
                                              sealed: sealed)
            case .delete(let id): items[id] = nil
            case .collectionAccess(let blob): sealedAccess = blob
            }
        }
        let file = CollectionFile(path: path, header: parsed.header, indexKey: try SecretBytes(copying: parsed.header.indexKey),
                                  slots: try Self.checkedSlots(slots), writer: nil, recordCount: parsed.frames.count)
        let state = CollectionState(id: expectedID, label: label, created: parsed.header.created, modified: modified,
                                    indexKey: file.indexKey, vault: nil, file: file, image: parsed.bytes)
        state.sealedAccess = sealedAccess
        state.reserveCapacity(items.count)
        var lastSequence: UInt64 = 0
        for item in items.values {
            state.insert(item)
            lastSequence = max(lastSequence, item.sequence)
        }
        state.nextSequence = lastSequence + 1
        return state
    }

    /// The slots of a file, in order, once their number and every password slot's cost are within bounds: both are
    /// used before anything can be verified (a wrong password costs one derivation per password slot).
    static func checkedSlots(_ slots: [UInt32: KeySlot]) throws(FormatError) -> [KeySlot] {
        guard !slots.isEmpty else { throw FormatError("the file holds no key") }
        let ordered = slots.values.sorted { $0.id < $1.id }
        guard ordered.count <= KeySlot.maximumCount,
              ordered.count(where: { $0.kind == .password }) <= KeySlot.maximumPasswordSlots
        else { throw FormatError("the file holds more key slots than accepted") }
        for slot in ordered where slot.kind == .password {
            guard let parameters = slot.parameters, parameters.isWithinWrapBounds else {
                let cost = slot.parameters.map {
                    "\($0.iterations) passes, \($0.memoryKiB) KiB, \($0.parallelism) lanes"
                } ?? "none"
                throw FormatError("the key wrap asks for a key derivation cost outside the accepted bounds (\(cost))")
            }
        }
        return ordered
    }

    func checkGeneration(_ parsed: ParsedFile, id: String) throws {
        try checkGeneration(lastSequence: parsed.lastSequence, id: id)
    }

    func checkGeneration(lastSequence: UInt64, id: String) throws {
        let recorded = ledger?.generation(of: id) ?? 0
        guard lastSequence >= recorded else {
            throw FormatError("the file is at generation \(lastSequence) but \(recorded) was written: "
                + "it is an older copy or was cut short")
        }
    }

    /// A record written to a collection's file whose acknowledgement waits for ``settle(_:)``.
    struct PendingWrite {
        let state: CollectionState
        let generation: UInt64
        /// A duplicate of the file's descriptor, for the syncer.
        let handle: Int32
    }

    /// Writes `record` to the collection's file (when it has one), without waiting for the disk. Callers then update
    /// memory, call ``compactIfWorthwhile(_:)`` (compaction rewrites the file from memory, so memory must already hold
    /// the change), announce it, and last of all `await` ``settle(_:)`` before they return: the reply, and so the
    /// acknowledgement, comes only once the record is durable. Memory changing first is what lets the actor serve
    /// other calls during the fsync; a client may so read a change a moment before it is durable, and a crash in
    /// that moment loses a change that was never acknowledged, as any crash before a reply does.
    /// - Throws: `failed` with the system's reason when the disk refuses the write (memory is then unchanged).
    func persist(_ record: FileRecord, in state: CollectionState) throws(SecretServiceError) -> PendingWrite? {
        guard let file = state.file else { return nil }
        guard let writer = file.writer, let keys = state.keys else { throw .isLocked("the collection is locked") }
        do {
            let (generation, handle) = try writer.append(record, key: keys.authentication)
            collections[state.id]?.file?.recordCount += 1
            return PendingWrite(state: state, generation: generation, handle: handle)
        } catch {
            throw .failed("the change could not be saved: \(error)")
        }
    }

    /// Waits until a written record is durable (off the store's thread, grouped with others), then records the new
    /// generation. When the disk fails the sync, what the file holds is unknown: the collection is locked, so
    /// nothing more is written to it and the next unlock reads and verifies what is there.
    func settle(_ pending: PendingWrite?) async throws(SecretServiceError) {
        guard let pending else { return }
        let id = pending.state.id
        let path = pending.state.file?.path ?? id
        let result = await syncer.sync(pending.handle)
        guard result == 0 else {
            if collections[id] === pending.state { _ = try? setLocked(id, true) }
            throw .failed("the change could not be saved: \(StorageError("cannot sync", path, errno: result))")
        }
        // Deleted (or deleted and made anew) while the record was being synced: its generation means nothing now.
        guard collections[id] === pending.state, let ledger else { return }
        do {
            if let handle = try ledger.record(id, pending.generation) {
                let result = await syncer.sync(handle)
                guard result == 0 else { throw StorageError("cannot sync", "generations", errno: result) }
            }
        } catch {
            throw .failed("the change could not be saved: \(error)")
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

// SPDX-License-Identifier: Apache-2.0
// The single owner of all provider state: collections, items, aliases and lock state.

public import Logging
public import SecretServiceProtocol
public import SecretCrypto

/// Owns every collection, item and alias. All state changes go through this actor, one at a time, and each
/// change is announced on ``events`` in the order it happened.
public actor SecretStore {
    /// Changes, in order; the daemon turns them into D-Bus signals.
    public nonisolated let events: AsyncStream<StoreEvent>
    let eventSink: AsyncStream<StoreEvent>.Continuation
    /// Yields when a collection becomes unlocked (by an unlock or by its creation): its auto-lock deadlines may now be
    /// earlier than any the daemon's AutoLocker waits for. One consumer (the AutoLocker); one buffered element is
    /// enough because each wake-up re-reads every collection.
    public nonisolated let unlocks: AsyncStream<Void>
    let unlockSink: AsyncStream<Void>.Continuation
    /// Yields a synchronized collection's directory in its folder each time its journal is opened (at unlock, or
    /// when it is made synchronized), so the daemon watches it for other devices' journals. One consumer.
    public nonisolated let openedSyncFolders: AsyncStream<OpenedSyncFolder>
    let syncFolderSink: AsyncStream<OpenedSyncFolder>.Continuation
    /// The monotonic time that last-use and unlock stamps are read from.
    let usageClock: UsageClock
    let limits: ItemLimits
    let clock: StoreClock
    var collections: [String: CollectionState] = [:]
    var aliases: [String: String] = [:]
    /// Where persistent collections live; `nil` keeps everything in memory.
    let directory: String?
    var ledger: GenerationLedger?
    /// Held from the first load for the store's life, so no second store writes the same directory.
    var directoryLock: DirectoryLock?
    /// Set by ``close()``: the directory is released and must not be taken again.
    var closed = false
    /// Makes appended records durable off the store's thread.
    let syncer: any FileSyncing
    /// Collections with an announced unlock under way, and the calls waiting for it to end.
    var pendingUnlocks: [String: [CheckedContinuation<Void, Never>]] = [:]
    /// Key-encryption keys of systemd-credential slots seen this run (added, or unlocked with), by collection and
    /// slot, kept so a password change can re-wrap those slots under a new master key. Kept while the collection is
    /// locked: the credential itself stays readable by this process for its whole life anyway (systemd keeps it in
    /// `$CREDENTIALS_DIRECTORY`). A key counts only while its slot is unchanged (``SlotKey/slot``).
    var heldSlotKeys: [String: [UInt32: SlotKey]] = [:]
    /// Told a collection's previous and new access-log keys before its master key is replaced
    /// (``onAccessLogKeyChange(_:)``).
    var accessLogKeyChange: AccessLogKeyChangeHandler?
    /// Synchronized collections' links to their folders, while unlocked (docs/SYNC.md; Sync/SecretStore+Sync.swift).
    var syncLinks: [String: SyncLink] = [:]
    /// Collections being made synchronized, so two requests cannot both make one so.
    var enablingSync: Set<String> = []
    /// The fewest records of its own a synchronized collection's journal holds before it may be compacted
    /// (Sync/SecretStore+SyncCompaction.swift); below it, a snapshot would save too little to be worth a rewrite.
    var syncCompactionMinimum = 512
    /// The `sync-folder` settings, by collection.
    var configuredSyncFolders: [String: String] = [:]
    /// Collections whose files failed to open, with the reason; never written to.
    var unavailable: [String: String] = [:]
    /// Whether new collections can be kept in files.
    public nonisolated var keepsFiles: Bool { directory != nil }
    /// The data directory, for what the daemon keeps beside the collections (its access log); `nil` in memory.
    public nonisolated var dataDirectory: String? { directory }
    /// Argon2id cost for new passwords.
    let keyDerivation: Argon2idParameters
    let logger: Logger

    /// - Parameters:
    ///   - limits: size limits enforced on every write.
    ///   - clock: the source of Created/Modified times.
    ///   - directory: where collection files live (created 0700 on first use); `nil` for memory only.
    ///   - keyDerivation: Argon2id parameters for new passwords.
    ///   - usageClock: the monotonic time auto-lock deadlines are measured in.
    ///   - logger: where unavailable files are reported (never with secrets or attribute values).
    public init(limits: ItemLimits = .default, clock: StoreClock = .system, directory: String? = nil,
                keyDerivation: Argon2idParameters = .default, usageClock: UsageClock = .continuous,
                logger: Logger = Logger(label: "coffer.store")) {
        self.init(limits: limits, clock: clock, directory: directory, keyDerivation: keyDerivation,
                  usageClock: usageClock, logger: logger, syncer: FileSyncer())
    }

    /// - Parameter syncer: how records are made durable (tests hold syncs back to watch what happens meanwhile).
    init(limits: ItemLimits = .default, clock: StoreClock = .system, directory: String?,
         keyDerivation: Argon2idParameters, usageClock: UsageClock = .continuous,
         logger: Logger = Logger(label: "coffer.store"), syncer: any FileSyncing) {
        self.syncer = syncer
        (events, eventSink) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
        (unlocks, unlockSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        (openedSyncFolders, syncFolderSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
        self.usageClock = usageClock
        self.limits = limits
        self.clock = clock
        self.directory = directory
        self.keyDerivation = keyDerivation
        self.logger = logger
    }

    deinit {
        eventSink.finish()
        unlockSink.finish()
        syncFolderSink.finish()
    }

    // MARK: - Collections

    /// Every collection's identifier, sorted.
    public func collectionIDs() -> [String] { collections.keys.sorted() }

    /// A snapshot of one collection.
    /// - Parameter countingItemTimes: whether `modified` must count every item's own time. The first snapshot after
    ///   an unlock that does opens every item's metadata; callers that do not read `modified` pass `false`.
    /// - Throws: ``SecretServiceError/noSuchObject(_:)``.
    public func collectionInfo(_ id: String, countingItemTimes: Bool = true) throws(SecretServiceError)
        -> CollectionInfo {
        try state(of: id).info(countingItemTimes: countingItemTimes)
    }

    /// Creates a collection, or returns the one `alias` already names.
    /// - Parameters:
    ///   - label: the human name.
    ///   - alias: when non-empty and already set, the existing collection is returned instead; otherwise the alias is
    ///     pointed at the new collection.
    ///   - inMemory: whether the collection lives only as long as the process.
    ///   - preferredID: an identifier to use (for `login`, `session`); derived from the label when `nil`.
    /// - Returns: the identifier, and whether a new collection was made.
    public func createCollection(label: String, alias: String = "", inMemory: Bool,
                                 preferredID: String? = nil) throws(SecretServiceError) -> (id: String, created: Bool) {
        try limits.check(label: label)
        if !alias.isEmpty {
            try Self.checkAliasName(alias)
            if let existing = aliases[alias], collections[existing] != nil { return (existing, false) }
        }
        try checkRoomForCollection()
        let base = preferredID ?? ObjectPathElement.derive(from: label, fallback: "collection")
        guard ObjectPathElement.isValid(base) else { throw .invalidArgs("invalid collection identifier") }
        var id = base
        var counter = 1
        while collections[id] != nil {
            id = "\(base)_\(counter)"
            counter += 1
        }
        guard inMemory else { throw .invalidArgs("a persistent collection needs a password") }
        let now = clock.now()
        let indexKey: SecretBytes
        do {
            indexKey = try SecureRandom.secretBytes(count: FileHeader.indexKeySize)
        } catch {
            throw .failed("no secure memory for the collection's index key: \(error)")
        }
        collections[id] = CollectionState(id: id, label: label, created: now, modified: now, indexKey: indexKey,
                                          vault: try .ephemeral(collectionID: id), file: nil)
        markUnlocked(id)
        eventSink.yield(.collectionCreated(id))
        eventSink.yield(.collectionsListChanged)
        if !alias.isEmpty { try setAlias(alias, to: id) }
        return (id, true)
    }

    /// Deletes a collection and every item in it; aliases pointing at it are removed.
    /// - Throws: ``SecretServiceError/noSuchObject(_:)``.
    public func deleteCollection(_ id: String) async throws(SecretServiceError) {
        await waitForCompaction(of: id)
        let state = try state(of: id)
        if let file = state.file { try removeFile(file, of: id) }
        forgetSync(of: id)
        collections[id] = nil
        heldSlotKeys[id] = nil
        for (name, target) in aliases where target == id { aliases[name] = nil }
        eventSink.yield(.collectionDeleted(id))
        eventSink.yield(.collectionsListChanged)
    }

    /// Renames a collection.
    /// - Throws: `noSuchObject`, `isLocked`, `limitsExceeded`.
    public func setLabel(ofCollection id: String, to label: String) async throws(SecretServiceError) {
        await waitForCompaction(of: id)
        try limits.check(label: label)
        let state = try unlockedState(of: id)
        guard state.label != label else { return }
        let now = clock.now()
        let pending = try persist(.collection(label: label, modified: now), in: state)
        collections[id]?.label = label
        collections[id]?.modified = now
        compactIfWorthwhile(id)
        markUsed(id)
        eventSink.yield(.collectionChanged(id, [.label, .modified]))
        try await settle(pending)
    }

    /// Locks a collection: a persistent one forgets its keys and clear metadata (secure memory is zeroed); an
    /// in-memory one only refuses access, since its secrets exist nowhere else. Unlocking an in-memory collection
    /// needs no password; a persistent one is unlocked with ``unlock(_:password:)``.
    /// - Returns: whether the state changed.
    /// - Throws: `noSuchObject`; `isLocked` when asked to unlock a persistent collection without its password.
    @discardableResult
    public func setLocked(_ id: String, _ locked: Bool) throws(SecretServiceError) -> Bool {
        let state = try state(of: id)
        guard state.isLocked != locked else { return false }
        if !locked, state.file != nil { throw .isLocked("this collection is unlocked with its password") }
        state.isLocked = locked
        if locked, state.file != nil {
            state.vault = nil
            state.keys = nil
            state.file?.writer = nil
            state.forgetMetadata()
            syncLinks[id] = nil
        }
        collections[id] = state
        if !locked { markUnlocked(id) }
        announceLockChange(of: state, changed: state.file != nil ? [.locked, .label, .attributes] : [.locked])
        return true
    }

    func announceLockChange(of state: CollectionState, changed: Set<ItemProperty>) {
        eventSink.yield(.collectionChanged(state.id, [.locked]))
        for itemID in state.items.keys.sorted() {
            eventSink.yield(.itemChanged(collection: state.id, item: itemID, changed))
        }
    }

    // MARK: - Aliases

    /// The collection an alias names, if any.
    public func resolveAlias(_ name: String) -> String? {
        aliases[name].flatMap { collections[$0] != nil ? $0 : nil }
    }

    /// Points an alias at a collection, or removes it when `collection` is `nil`.
    /// - Throws: `invalidArgs` for a malformed name, `noSuchObject` for an unknown collection.
    public func setAlias(_ name: String, to collection: String?) throws(SecretServiceError) {
        try Self.checkAliasName(name)
        if let collection { _ = try state(of: collection) }
        let previous = aliases[name]
        let previousText = persistentAliasText()
        aliases[name] = collection
        do {
            try saveAliases(previous: previousText)
        } catch {
            aliases[name] = previous
            throw .failed("the alias could not be saved: \(error)")
        }
    }

    /// Every alias that names an existing collection, sorted.
    public func aliasNames() -> [String] {
        aliases.filter { collections[$0.value] != nil }.map(\.key).sorted()
    }

    /// The aliases that name `collection`, sorted.
    public func aliases(of collection: String) -> [String] {
        aliases.filter { $0.value == collection }.map(\.key).sorted()
    }

    static func checkAliasName(_ name: String) throws(SecretServiceError) {
        guard ObjectPathElement.isValid(name) else {
            throw .invalidArgs("alias names may contain only letters, digits and '_'")
        }
    }

    // MARK: - Helpers

    func state(of id: String) throws(SecretServiceError) -> CollectionState {
        guard let state = collections[id] else { throw .noSuchObject("no such collection") }
        return state
    }

    @discardableResult
    func unlockedState(of id: String) throws(SecretServiceError) -> CollectionState {
        let state = try state(of: id)
        guard !state.isLocked else { throw .isLocked("the collection is locked") }
        return state
    }

    func touch(_ id: String) {
        collections[id]?.modified = clock.now()
    }
}

// SPDX-License-Identifier: Apache-2.0
// The single owner of all provider state: collections, items, aliases and lock state.

public import SecretServiceProtocol
import SecretCrypto

/// Owns every collection, item and alias. All state changes go through this actor, one at a time, and each
/// change is announced on ``events`` in the order it happened.
public actor SecretStore {
    /// Changes, in order; the daemon turns them into D-Bus signals.
    public nonisolated let events: AsyncStream<StoreEvent>
    let eventSink: AsyncStream<StoreEvent>.Continuation
    let limits: ItemLimits
    let clock: StoreClock
    var collections: [String: CollectionState] = [:]
    var aliases: [String: String] = [:]

    /// - Parameters:
    ///   - limits: size limits enforced on every write.
    ///   - clock: the source of Created/Modified times.
    public init(limits: ItemLimits = .default, clock: StoreClock = .system) {
        (events, eventSink) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
        self.limits = limits
        self.clock = clock
    }

    deinit { eventSink.finish() }

    // MARK: - Collections

    /// Every collection's identifier, sorted.
    public func collectionIDs() -> [String] { collections.keys.sorted() }

    /// A snapshot of one collection.
    /// - Throws: ``SecretServiceError/noSuchObject(_:)``.
    public func collectionInfo(_ id: String) throws(SecretServiceError) -> CollectionInfo {
        try state(of: id).info()
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
        let base = preferredID ?? ObjectPathElement.derive(from: label, fallback: "collection")
        guard ObjectPathElement.isValid(base) else { throw .invalidArgs("invalid collection identifier") }
        var id = base
        var counter = 1
        while collections[id] != nil {
            id = "\(base)_\(counter)"
            counter += 1
        }
        let now = clock.now()
        collections[id] = CollectionState(id: id, label: label, created: now, modified: now, isInMemory: inMemory)
        eventSink.yield(.collectionCreated(id))
        eventSink.yield(.collectionsListChanged)
        if !alias.isEmpty { try setAlias(alias, to: id) }
        return (id, true)
    }

    /// Deletes a collection and every item in it; aliases pointing at it are removed.
    /// - Throws: ``SecretServiceError/noSuchObject(_:)``.
    public func deleteCollection(_ id: String) throws(SecretServiceError) {
        guard collections.removeValue(forKey: id) != nil else { throw .noSuchObject("no such collection") }
        for (name, target) in aliases where target == id { aliases[name] = nil }
        eventSink.yield(.collectionDeleted(id))
        eventSink.yield(.collectionsListChanged)
    }

    /// Renames a collection.
    /// - Throws: `noSuchObject`, `isLocked`, `limitsExceeded`.
    public func setLabel(ofCollection id: String, to label: String) throws(SecretServiceError) {
        try limits.check(label: label)
        try unlockedState(of: id)
        guard collections[id]?.label != label else { return }
        collections[id]?.label = label
        touch(id)
        eventSink.yield(.collectionChanged(id, [.label, .modified]))
    }

    /// Locks or unlocks a collection.
    /// - Returns: whether the state changed.
    /// - Throws: ``SecretServiceError/noSuchObject(_:)``.
    @discardableResult
    public func setLocked(_ id: String, _ locked: Bool) throws(SecretServiceError) -> Bool {
        let state = try state(of: id)
        guard state.isLocked != locked else { return false }
        collections[id]?.isLocked = locked
        eventSink.yield(.collectionChanged(id, [.locked]))
        for itemID in state.items.keys.sorted() {
            eventSink.yield(.itemChanged(collection: id, item: itemID, [.locked]))
        }
        return true
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
        guard let collection else {
            aliases[name] = nil
            return
        }
        _ = try state(of: collection)
        aliases[name] = collection
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

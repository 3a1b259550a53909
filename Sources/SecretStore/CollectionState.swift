// SPDX-License-Identifier: Apache-2.0
// One collection's items, indexes, keys and file; a value owned by the SecretStore actor.

import SecretCrypto
import SecretServiceProtocol

/// One stored item: its metadata and secret, both always sealed, and its attribute tags. Metadata is opened when asked
/// for rather than held in clear: at the per-collection item limit, the clear copies and an index of clear attributes
/// were most of the daemon's memory and most of the time an unlock took.
struct StoredItem {
    var id: String
    /// Creation order within the collection; breaks ties between items modified in the same second.
    var sequence: UInt64
    /// The metadata's `modified` once it was opened while the collection was unlocked (searches sort by it); `nil`
    /// while unknown, and always while a persistent collection is locked.
    var knownModified: UInt64?
    /// Attribute tags (by which the collection is searched, locked or not), sealed metadata and sealed secret.
    var sealed: SealedItem

    var modified: UInt64 { knownModified ?? 0 }
}

/// The file side of a persistent collection.
struct CollectionFile {
    let path: String
    var header: FileHeader
    let indexKey: SecretBytes
    /// The wraps of the master key, by slot number; never empty.
    var slots: [KeySlot]
    /// Open while unlocked; appends go through it.
    var writer: JournalWriter?
    /// Records in the file, to decide when compaction pays.
    var recordCount: Int
    /// What the locked collection was built from, while nothing has been written since; lets the unlock that
    /// follows a start verify the file without decoding every record a second time.
    var loadedImage: LoadedImage? = nil
}

/// A collection: its metadata, items, indexes and, while unlocked, its keys. A class, owned by the store actor: as a
/// value, any write that still held a copy would duplicate the whole item table (copy on write), making each write
/// cost grow with the collection.
final class CollectionState {
    var id: String
    var label: String
    var created: UInt64
    var modified: UInt64
    /// Whether ``modified`` already counts every item's own time: opening all the metadata is left until someone
    /// asks for the collection's `Modified`, rather than done by every unlock.
    var modifiedCountsItems = false
    var isLocked = false
    /// Changed only through ``insert(_:)`` and ``remove(_:)``, which keep ``sealedSecretBytes`` in step.
    private(set) var items: [String: StoredItem] = [:]
    /// The sealed secrets' sizes added up, kept as items come and go so the store-wide limit costs nothing per write.
    private(set) var sealedSecretBytes = 0
    var nextSequence: UInt64 = 1
    /// Keys the attribute tags: the file header's index key (a password change makes a new one), or a random one
    /// for in-memory collections.
    var indexKey: SecretBytes {
        didSet { tagger = nil }
    }
    /// A context keyed with ``indexKey``, made on the first search.
    private var tagger: HMACSHA256.Authenticator?
    /// Tag index, valid locked or not.
    private(set) var index = TagIndex()
    /// The file bytes the items loaded from it point into (see ``SealedItem``); empty for in-memory collections.
    let image: [UInt8]
    /// The applications the user always allowed to use every item (record type 6), sealed like item metadata, so
    /// it is carried while locked and opened only when asked; `nil` when none was ever allowed.
    var sealedAccess: SealedBlob? {
        didSet { openedAccess = nil }
    }
    /// ``sealedAccess`` opened, kept while unlocked: every check of an application that did not create an item asks
    /// for it, and a search over many such items would otherwise open it once per item.
    var openedAccess: [String]?
    /// Each item's creator and always-allowed applications, learnt when its metadata was opened and kept while
    /// unlocked: access control asks for them on every call of an application about an item, and a search over many
    /// items would otherwise open each item's metadata again for each caller.
    private var ownerships: [String: ItemOwnership] = [:]
    /// One copy of each creator identity, which the entries of ``ownerships`` share.
    private var creators: Set<String> = []
    /// The metadata opened last, kept while unlocked: clients read the same items' properties again and again (a
    /// Keychain search fetches every candidate's attributes each time), and opening means decrypting and decoding.
    /// Bounded, because keeping every item's metadata in clear is what the sealed table exists to avoid; it holds
    /// labels and attributes, which any client of the unlocked collection may read, never secrets.
    private var openedMetas: [String: ItemMeta] = [:]
    /// How many items' metadata ``openedMetas`` holds at most; when full it starts over rather than track recency,
    /// which would cost every read a write.
    static let openedMetaLimit = 1024
    /// Present while unlocked (always, for in-memory collections).
    var vault: SecretVault?
    var keys: CollectionKeys?
    var file: CollectionFile?
    /// Set while the file is being rewritten off the store's thread (see ``SecretStore/compactIfWorthwhile(_:)``).
    var isCompacting = false
    /// Those who wait for the compaction to end before they touch the file.
    var compactionWaiters: [CheckedContinuation<Void, Never>] = []
    /// ``UsageClock`` stamps of the last use and the last unlock, which auto-lock deadlines count from.
    var lastUsed: Duration = .zero
    var unlockedAt: Duration = .zero

    var isInMemory: Bool { file == nil }

    init(id: String, label: String, created: UInt64, modified: UInt64, indexKey: SecretBytes, vault: SecretVault?,
         file: CollectionFile?, image: [UInt8] = []) {
        self.image = image
        self.id = id
        self.label = label
        self.created = created
        self.modified = modified
        self.indexKey = indexKey
        self.vault = vault
        self.file = file
    }

    /// A snapshot. With `countingItemTimes`, the first one after an unlock opens every item's metadata to fold their
    /// times into `modified`; callers that do not read `modified` pass `false` and skip that work.
    func info(countingItemTimes: Bool = true) -> CollectionInfo {
        if countingItemTimes { foldItemTimes() }
        return CollectionInfo(id: id, label: label, created: created, modified: modified, isLocked: isLocked,
                              isInMemory: isInMemory)
    }

    /// Counts every item's `modified` into the collection's, once per unlock.
    func foldItemTimes() {
        guard !modifiedCountsItems, let vault else { return }
        // The keys are copied first: mutating the table while iterating it would copy it whole for every item.
        for itemID in Array(items.keys) {
            if let time = modifiedTime(of: itemID, vault: vault) { modified = max(modified, time) }
        }
        modifiedCountsItems = true
    }

    /// The item's `modified`, decrypted (only that field) the first time and remembered.
    private func modifiedTime(of itemID: String, vault: SecretVault) -> UInt64? {
        guard let item = items[itemID] else { return nil }
        if let known = item.knownModified { return known }
        guard let opened = try? vault.openModified(item.sealed.meta(in: image), item: itemID) else { return nil }
        items[itemID]?.knownModified = opened
        return opened
    }

    /// The item's metadata, decrypted; `nil` while the collection is locked (persistent collections forget their
    /// key) or when the item does not exist. Remembers the item's `modified` for searches.
    /// - Throws: when the metadata cannot be opened (no secure memory left, or a value altered in memory).
    func openMeta(_ itemID: String) throws -> ItemMeta? {
        guard let vault, let item = items[itemID] else { return nil }
        if let opened = openedMetas[itemID] { return opened }
        let meta = try vault.openMeta(item.sealed.meta(in: image), item: itemID)
        if openedMetas.count >= Self.openedMetaLimit { openedMetas.removeAll(keepingCapacity: true) }
        openedMetas[itemID] = meta
        if item.knownModified != meta.modified { items[itemID]?.knownModified = meta.modified }
        ownerships[itemID] = ItemOwnership(creator: meta.creator.map { creators.insert($0).memberAfterInsert },
                                           allowed: meta.allowed,
                                           accessGroup: meta.attributes[SecretAttributeNames.keychainAccessGroup])
        return meta
    }

    /// The item's content type: from its opened metadata when a read of its properties opened it already, else
    /// decrypting only that field (decoding the label and attributes too would double a secret read's cost).
    /// - Throws: as ``openMeta(_:)``.
    func contentType(of item: StoredItem, vault: SecretVault) throws -> String {
        if let opened = openedMetas[item.id] { return opened.contentType }
        return try vault.openContentType(item.sealed.meta(in: image), item: item.id)
    }

    /// The item's creator and always-allowed applications; `nil` while locked or for an unknown item.
    /// - Throws: as ``openMeta(_:)``, the first time after an unlock.
    func ownership(of itemID: String) throws -> ItemOwnership? {
        guard vault != nil else { return nil }
        // Known ownerships are of present items only (removing or replacing an item forgets its own): one lookup.
        if let known = ownerships[itemID] { return known }
        guard items[itemID] != nil else { return nil }
        _ = try openMeta(itemID)
        return ownerships[itemID]
    }

    /// The item as the outside sees it; label and attributes are unknown (empty) while locked.
    /// - Throws: `failed` when its metadata cannot be opened.
    func info(of item: StoredItem) throws(SecretServiceError) -> ItemInfo {
        let meta: ItemMeta?
        do {
            meta = try openMeta(item.id)
        } catch {
            throw .failed("the item's metadata could not be decrypted: \(error)")
        }
        return ItemInfo(collection: id, id: item.id, label: meta?.label ?? "", attributes: meta?.attributes ?? [:],
                        contentType: meta?.contentType ?? "", created: meta?.created ?? 0,
                        modified: meta?.modified ?? 0, isLocked: isLocked)
    }

    /// The tags of `attributes` under this collection's index key.
    /// - Throws: ``CryptoError`` when libgcrypt cannot compute them (no secure memory left).
    func tags(for attributes: [String: String]) throws -> [AttributeTag] {
        if tagger == nil { tagger = try HMACSHA256.Authenticator(key: indexKey) }
        return try AttributeTags.tags(for: attributes, authenticator: tagger!)
    }

    /// Items matching every pair of `query`, newest `Modified` first (ties: newest created first). Answered from the
    /// attribute tags, locked or not; while unlocked, the candidates' metadata is opened to order them.
    func matches(_ query: [String: String]) -> [StoredItem] {
        let ids = matchingIDs(query)
        if ids.count > 1, let vault {
            for itemID in ids { _ = modifiedTime(of: itemID, vault: vault) }
        }
        return ids.compactMap { items[$0] }.sorted(by: Self.newestFirst)
    }

    /// The items matching every pair of `query`, unordered, from the attribute tags alone (locked or not).
    func matchingIDs(_ query: [String: String]) -> [String] {
        let candidates: Set<String>?
        do {
            candidates = index.candidates(forTags: try tags(for: query))
        } catch {
            return []  // no secure memory for the tags' key: nothing can be found until there is
        }
        return candidates.map(Array.init) ?? Array(items.keys)
    }

    static func newestFirst(_ a: StoredItem, _ b: StoredItem) -> Bool {
        a.modified != b.modified ? a.modified > b.modified : a.sequence > b.sequence
    }

    /// The item as a file record, for compaction.
    func record(of item: StoredItem) -> ItemRecord {
        ItemRecord(id: item.id, sequence: item.sequence, tags: item.sealed.tags(in: image).map(\.bytes),
                   meta: item.sealed.meta(in: image), secret: item.sealed.secret(in: image))
    }

    func insert(_ item: StoredItem) {
        if let old = items[item.id] {
            index.remove(old.id, tags: old.sealed.tags(in: image))
            sealedSecretBytes -= old.sealed.secretByteCount
        }
        items[item.id] = item
        // Its metadata was sealed anew.
        ownerships[item.id] = nil
        openedMetas[item.id] = nil
        sealedSecretBytes += item.sealed.secretByteCount
        index.insert(item.id, tags: item.sealed.tags(in: image))
    }

    /// Forgets what was learnt from opened metadata (a lock); sealed data, tags and sizes stay.
    func forgetMetadata() {
        openedAccess = nil
        ownerships = [:]
        openedMetas = [:]
        creators = []
        // Not a loop over `items.keys` with a subscript write: that copies the whole table once per item.
        items = items.mapValues { item in
            var forgotten = item
            forgotten.knownModified = nil
            return forgotten
        }
    }

    /// Makes room for `count` items at once, so loading a file does not grow the tables step by step.
    func reserveCapacity(_ count: Int) {
        items.reserveCapacity(count)
    }

    @discardableResult
    func remove(_ itemID: String) -> StoredItem? {
        guard let item = items.removeValue(forKey: itemID) else { return nil }
        ownerships[itemID] = nil
        openedMetas[itemID] = nil
        sealedSecretBytes -= item.sealed.secretByteCount
        index.remove(item.id, tags: item.sealed.tags(in: image))
        return item
    }
}

// SPDX-License-Identifier: Apache-2.0
// Decides, per caller, whether an item is usable: its creator, the user's decisions, the collection's policy.

#if canImport(Glibc)
import Glibc
#endif
import DBusWire
import Logging
import SecretServiceProtocol
import SecretStore

/// The one place that answers "may this client use this item?" for the adaptors (docs/ACCESS-CONTROL.md).
///
/// Using means reading the secret, changing the secret, label or attributes, or deleting the item. An item the
/// caller may not use is reported to it as locked; its `Unlock` asks the user.
struct AccessGate: Sendable {
    let policy: AccessPolicy
    let identities: CallerIdentities
    let decisions: AccessDecisions
    let store: SecretStore
    /// Where every decision is recorded.
    let log: AccessLog

    init(policy: AccessPolicy, sender: any MessageSender, store: SecretStore, logger: Logger) {
        self.policy = policy
        log = AccessLog(directory: store.dataDirectory, fallbackCollection: LoginKeyring.collectionID,
                        keys: { [store] collection in await store.accessLogKey(of: collection) },
                        collections: { [store] in await store.collectionIDs() }, logger: logger)
        identities = CallerIdentities(sender: sender, ownUserID: UInt32(getuid()), log: log)
        decisions = AccessDecisions()
        self.store = store
    }

    /// Hands the store's master-key changes to the log, which keeps older entries readable with them; a change goes
    /// ahead only once the log holds it.
    func followKeyChanges() async {
        let log = self.log
        await store.onAccessLogKeyChange { collection, old, new in
            try await log.keyChanged(of: collection, from: old, to: new)
        }
    }

    /// Resolves the caller (once per connection) when any collection is guarded; refuses another user's process.
    /// With access control off everywhere nothing is asked, so cofferd behaves as it did before it existed.
    func admit(_ caller: BusName, receivedAt: UInt64) async throws(SecretServiceError) {
        guard !policy.isOff else { return }
        _ = try await identities.caller(caller, receivedAt: receivedAt)
    }

    /// The identity recorded as the creator of an item `caller` makes; `nil` when it cannot be told (a router
    /// with no bus behind it), which leaves the item to no application in particular.
    func creator(for caller: BusName, receivedAt: UInt64) async -> String? {
        try? await identities.caller(caller, receivedAt: receivedAt).identity.description
    }

    /// Whether `caller` may use the item without asking. `false` while the collection is locked (nothing is known
    /// about the item's creator then, and the item is locked for everyone anyway). An item nobody owns (stored before
    /// creators were recorded, or imported) is open to every application under `ask` until one uses it
    /// (``permitsUse(_:collection:item:)``); under `strict` it needs consent like any other.
    func permits(_ caller: BusName, collection: String, item: String) async -> Bool {
        await permitted(caller, [(collection, item)])[0]
    }

    /// As ``permits(_:collection:item:)``, for a call that uses the item: `use` is `.read`, `.changed` or `.deleted`,
    /// and a use allowed is logged as that (buffered: see ``AccessLog/noteUses(_:)``). Under `ask`, an item nobody
    /// owns becomes the caller's now (trust on first use, logged as `adopted`), so the items a user already had get
    /// owners without a question each; from then on another application is asked.
    func permitsUse(_ caller: BusName, collection: String, item: String, for use: AccessLogEntry.Outcome) async
        -> Bool {
        await permitsUses(caller, [(collection, item)], for: use)[0]
    }

    /// ``permits(_:collection:item:)`` for many items (a search's matches).
    func permitted(_ caller: BusName, _ items: [(collection: String, item: String)]) async -> [Bool] {
        await standings(of: caller, items).standings.map { $0 != .refused }
    }

    /// ``permitsUse(_:collection:item:for:)`` for many items at once (`GetSecrets`): the uses are logged together.
    func permitsUses(_ caller: BusName, _ items: [(collection: String, item: String)], for use: AccessLogEntry.Outcome)
        async -> [Bool] {
        let (who, standings) = await standings(of: caller, items)
        var uses: [AccessLogEntry] = []
        for (found, standing) in zip(items, standings) where standing != .refused {
            // A collection without access control decides nothing and logs nothing (its callers need no identity).
            guard let who, policy.mode(for: found.collection) != .off else { continue }
            if standing == .unowned, (try? await store.adoptItem(collection: found.collection, item: found.item,
                                                                 by: who.identity.description)) == true {
                await record(.adopted, who, collection: found.collection, item: found.item)
            }
            uses.append(entry(use, who, collection: found.collection, item: found.item))
        }
        if !uses.isEmpty { await log.noteUses(uses) }
        return standings.map { $0 != .refused }
    }

    private enum Standing { case permitted, unowned, refused }

    /// Each item's standing for `caller`: the caller is resolved, and the items' owners fetched, once for all of them.
    private func standings(of caller: BusName, _ items: [(collection: String, item: String)]) async
        -> (who: Caller?, standings: [Standing]) {
        guard !policy.isOff else { return (nil, Array(repeating: .permitted, count: items.count)) }
        let who = await identities.known(caller)
        let ownerships = await store.itemOwnerships(items)
        let identity = who?.identity.description
        var standings: [Standing] = []
        standings.reserveCapacity(items.count)
        for (found, ownership) in zip(items, ownerships) {
            // The caller's own items, and those always allowed to it, are usable under every mode: decided here,
            // without a policy lookup or a call that may suspend, since they are nearly every check.
            if let identity, let ownership, ownership.creator == identity || ownership.allowed.contains(identity) {
                standings.append(.permitted)
                continue
            }
            standings.append(await standing(of: caller, who: who, ownership: ownership, collection: found.collection,
                                            item: found.item))
        }
        return (who, standings)
    }

    /// The rules, given what the caller is and who owns the item (`nil`: unknown, so refused).
    private func standing(of caller: BusName, who: Caller?, ownership: ItemOwnership?, collection: String,
                          item: String) async -> Standing {
        let mode = policy.mode(for: collection)
        guard mode != .off else { return .permitted }
        guard let who, let ownership else { return .refused }
        let identity = who.identity.description
        if ownership.creator == identity || ownership.allowed.contains(identity) { return .permitted }
        if ownership.creator == nil, mode == .ask { return .unowned }
        // Past the owner's own items only: the owner's reads cost no more than before collection-wide decisions.
        if let grants = try? await store.collectionAllowedApplications(collection),
           grants.contains(where: { CollectionGrant(entry: $0).allows(identity, itemGroup: ownership.accessGroup) }) {
            return .permitted
        }
        return await decisions.allowsOnce(caller, ItemKey(collection: collection, item: item)) ? .permitted : .refused
    }

    /// Records that `caller` was refused the use of an item, once per item per connection (a client retrying in a
    /// loop on its connection must not flood the bounded log).
    func refused(_ caller: BusName, collection: String, item: String) async {
        guard let who = await identities.known(caller),
              await decisions.firstRefusal(caller, ItemKey(collection: collection, item: item))
        else { return }
        await record(.refused, who, collection: collection, item: item)
    }

    /// Appends a decision about `who` to the access log.
    func record(_ outcome: AccessLogEntry.Outcome, _ who: Caller, collection: String, item: String = "") async {
        await log.record(entry(outcome, who, collection: collection, item: item))
    }

    private func entry(_ outcome: AccessLogEntry.Outcome, _ who: Caller, collection: String, item: String)
        -> AccessLogEntry {
        AccessLogEntry(time: Self.now(), outcome: outcome, application: who.identity.description,
                       processID: UInt32(bitPattern: who.processID), collection: collection, item: item)
    }

    /// Seconds since 1970, as the log records times.
    static func now() -> UInt64 { UInt64(max(time(nil), 0)) }

    /// Whether items `caller` may not use are hidden from it rather than shown locked.
    func hides(_ collection: String) -> Bool { policy.mode(for: collection) == .strict }

    /// Forgets a client that left the bus: its identity and its "allow once" answers.
    func clientVanished(_ name: BusName) async {
        await identities.clientVanished(name)
        await decisions.clientVanished(name)
    }
}

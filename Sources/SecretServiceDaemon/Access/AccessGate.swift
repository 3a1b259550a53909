// SPDX-License-Identifier: Apache-2.0
// Decides, per caller, whether an item is usable: its creator, the user's decisions, the collection's policy.

#if canImport(Glibc)
import Glibc
#endif
import DBusWire
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

    init(policy: AccessPolicy, sender: any MessageSender, store: SecretStore) {
        self.policy = policy
        identities = CallerIdentities(sender: sender, ownUserID: UInt32(getuid()))
        decisions = AccessDecisions()
        self.store = store
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
    /// about the item's creator then, and the item is locked for everyone anyway).
    func permits(_ caller: BusName, collection: String, item: String) async -> Bool {
        guard policy.mode(for: collection) != .off else { return true }
        guard let who = await identities.known(caller),
              let ownership = try? await store.itemOwnership(collection: collection, item: item)
        else { return false }
        let identity = who.identity.description
        if ownership.creator == identity || ownership.allowed.contains(identity) { return true }
        return await decisions.allowsOnce(caller, ItemKey(collection: collection, item: item))
    }

    /// Whether items `caller` may not use are hidden from it rather than shown locked.
    func hides(_ collection: String) -> Bool { policy.mode(for: collection) == .strict }

    /// Forgets a client that left the bus: its identity and its "allow once" answers.
    func clientVanished(_ name: BusName) async {
        await identities.clientVanished(name)
        await decisions.clientVanished(name)
    }
}

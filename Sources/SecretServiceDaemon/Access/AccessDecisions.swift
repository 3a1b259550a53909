// SPDX-License-Identifier: Apache-2.0
// The user's answers to access prompts: "allow once" per connection, "always allow" per application identity.

import DBusWire

/// What the user answered to an access prompt.
public enum AccessAnswer: Sendable, Hashable {
    case allowOnce
    case alwaysAllow
    case deny
}

/// An item as access decisions name it.
struct ItemKey: Sendable, Hashable {
    var collection: String
    var item: String
}

/// A standing permission of one application.
enum AccessGrant: Sendable, Hashable {
    /// One item.
    case item(ItemKey)
    /// Every item of the collection that has no recorded creator (made before identities were recorded, or
    /// imported): one answer covers them, so upgrading does not mean a prompt per old item.
    case unowned(collection: String)
}

/// Owns the decisions. "Allow once" lasts as long as the client's connection; "always allow" as long as the daemon.
actor AccessDecisions {
    private var once: [BusName: Set<ItemKey>] = [:]
    private var always: [String: Set<AccessGrant>] = [:]

    func allows(_ caller: BusName, _ identity: AppIdentity, _ item: ItemKey, unowned: Bool) -> Bool {
        if once[caller]?.contains(item) == true { return true }
        guard let grants = always[identity.description] else { return false }
        return grants.contains(.item(item)) || (unowned && grants.contains(.unowned(collection: item.collection)))
    }

    /// Records an answer; a denial records nothing (the next attempt asks again).
    func record(_ answer: AccessAnswer, caller: BusName, identity: AppIdentity, item: ItemKey, unowned: Bool) {
        switch answer {
        case .allowOnce: once[caller, default: []].insert(item)
        case .alwaysAllow:
            always[identity.description, default: []].insert(unowned ? .unowned(collection: item.collection) : .item(item))
        case .deny: break
        }
    }

    /// Forgets a client's "allow once" answers when it leaves the bus.
    func clientVanished(_ name: BusName) { once[name] = nil }
}

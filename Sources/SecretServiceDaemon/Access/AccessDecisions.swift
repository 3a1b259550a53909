// SPDX-License-Identifier: Apache-2.0
// The user's "allow once" answers, which last as long as the client's connection.

import DBusWire

/// What the user answered to an access prompt.
public enum AccessAnswer: Sendable, Hashable {
    /// For this connection of the application only.
    case allowOnce
    /// For the application identity, kept in the item's sealed metadata (``SecretStore/setAllowedApplications``).
    case alwaysAllow
    /// For the application identity and every item of the collection, present and future, kept once in the
    /// collection's sealed list (``SecretStore/setCollectionAllowedApplications``), as `coffer access grant
    /// --collection` does.
    case alwaysAllowCollection
    case deny

    /// How the access log names the answer.
    var logged: AccessLogEntry.Outcome {
        switch self {
        case .allowOnce: .allowedOnce
        case .alwaysAllow, .alwaysAllowCollection: .alwaysAllowed
        case .deny: .denied
        }
    }
}

/// An item as access decisions name it.
struct ItemKey: Sendable, Hashable {
    var collection: String
    var item: String
}

/// Owns the "allow once" answers per connection. "Always allow" answers live in the store, with the item.
actor AccessDecisions {
    private var once: [BusName: Set<ItemKey>] = [:]
    /// Items each connection was refused and the refusal logged.
    private var refused: [BusName: Set<ItemKey>] = [:]

    func allowsOnce(_ caller: BusName, _ item: ItemKey) -> Bool { once[caller]?.contains(item) == true }

    func allowOnce(_ caller: BusName, _ item: ItemKey) { once[caller, default: []].insert(item) }

    /// Whether this is the connection's first refusal of the item (and notes it).
    func firstRefusal(_ caller: BusName, _ item: ItemKey) -> Bool { refused[caller, default: []].insert(item).inserted }

    /// Forgets a client's answers when it leaves the bus.
    func clientVanished(_ name: BusName) {
        once[name] = nil
        refused[name] = nil
    }
}

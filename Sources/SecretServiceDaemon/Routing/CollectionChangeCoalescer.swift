// SPDX-License-Identifier: Apache-2.0
// Spaces out a collection's CollectionChanged and PropertiesChanged, so a burst of writes is announced once, not per write.

import SecretStore

/// Decides when a collection's changes (`CollectionChanged` on the service, `PropertiesChanged` on the collection)
/// are announced.
///
/// Each write changed the collection's `Modified` and `Items`, and announcing that after every write cost five
/// messages: the `Items` list names every item (10,000 items: half a megabyte per store through the bus), and even the
/// small ones each pass through the bus daemon ahead of other clients' replies, which on a small machine delayed every
/// lookup made while another client stored. Clients learn of each item at once from `ItemCreated` / `ItemDeleted`,
/// which are always sent. The collection's own announcement goes out at once when the previous one is old enough, and
/// otherwise once, at the end of the spacing, with every property changed meanwhile and their values current then.
/// The spacing is a multiple of what building and sending the previous announcement cost, so the lists take a bounded
/// share of the daemon's time at any collection size, with a floor that turns a burst of writes (an import, a
/// script, a sync) into one announcement per floor; a single change is announced without delay.
actor CollectionChangeCoalescer {
    /// Spacing = this many times the cost of the previous announcement, within the bounds below: announcements take
    /// at most a hundredth of the daemon's time. The bus daemon reads and checks each list as well, one message at a
    /// time, so a lookup made by another client waits behind it now and then; at a twentieth, in a large collection,
    /// enough lookups did so to show in the 99th percentile of lookups made while another client stored.
    static let costMultiple = 100
    static let minimumSpacing: Duration = .milliseconds(20)
    /// Never hold an announcement back longer than this.
    static let maximumSpacing: Duration = .milliseconds(500)

    private let clock = ContinuousClock()
    private var lastSent: [String: ContinuousClock.Instant] = [:]
    private var spacing: [String: Duration] = [:]
    /// Collections with an announcement being sent or waiting for its time.
    private var busy: Set<String> = []
    /// What changed since the last announcement began, per collection.
    private var unannounced: [String: Set<CollectionProperty>] = [:]
    private let send: @Sendable (String, Set<CollectionProperty>) async -> Void

    /// - Parameter send: builds and emits the announcement of `properties` of one collection (called on this
    ///   actor's schedule).
    init(send: @escaping @Sendable (String, Set<CollectionProperty>) async -> Void) {
        self.send = send
    }

    /// Collections whose announcement is being sent or waits for its time.
    var pending: Set<String> { busy }

    /// `properties` of `collection` changed: announces them now (before returning, so the announcement keeps its place
    /// among the other signals), or with the next announcement once the spacing has passed.
    func changed(_ collection: String, _ properties: Set<CollectionProperty>) async {
        unannounced[collection, default: []].formUnion(properties)
        guard !busy.contains(collection) else { return }
        busy.insert(collection)
        if due(collection) <= clock.now {
            await sendTimed(collection)
        } else {
            scheduleSend(collection)
        }
    }

    private func due(_ collection: String) -> ContinuousClock.Instant {
        guard let last = lastSent[collection] else { return clock.now }
        return last + (spacing[collection] ?? .zero)
    }

    private func scheduleSend(_ collection: String) {
        let due = due(collection)
        Task {
            try? await clock.sleep(until: due)
            await sendTimed(collection)
        }
    }

    private func sendTimed(_ collection: String) async {
        let properties = unannounced.removeValue(forKey: collection) ?? []
        let start = clock.now
        await send(collection, properties)
        let end = clock.now
        lastSent[collection] = end
        spacing[collection] = min(max((end - start) * Self.costMultiple, Self.minimumSpacing), Self.maximumSpacing)
        if unannounced[collection] != nil {
            scheduleSend(collection)
        } else {
            busy.remove(collection)
        }
    }
}

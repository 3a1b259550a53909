// SPDX-License-Identifier: Apache-2.0
// Spaces out a collection's PropertiesChanged(Items), whose value lists every item, so a change costs O(1).

/// Decides when a collection's full `Items` list is announced after a change.
///
/// The list names every item, so sending it after each store or delete made a write cost grow with the collection
/// (10,000 items: half a megabyte per store through the bus). Clients learn of each change at once from
/// ItemCreated / ItemDeleted, which are always sent; the list itself goes out at once when the previous one is old
/// enough, and otherwise once, at the end of the spacing, with the value current then. The spacing is a multiple of
/// what building and sending the previous list cost, so the lists take a bounded share of the daemon's time at any
/// collection size, and a small collection (a list costs microseconds) still gets its list without visible delay.
actor ItemsListCoalescer {
    /// Spacing = this many times the cost of the previous list.
    static let costMultiple = 20
    /// Never hold a list back longer than this.
    static let maximumSpacing: Duration = .milliseconds(500)

    private let clock = ContinuousClock()
    private var lastSent: [String: ContinuousClock.Instant] = [:]
    private var spacing: [String: Duration] = [:]
    /// Collections with a list being sent or waiting for its time.
    private var busy: Set<String> = []
    /// Collections that changed again while busy: the list in flight may predate the change.
    private var dirty: Set<String> = []
    private let send: @Sendable (String) async -> Void

    /// - Parameter send: builds and emits the list of one collection (called on this actor's schedule).
    init(send: @escaping @Sendable (String) async -> Void) {
        self.send = send
    }

    /// Collections whose list is being sent or waits for its time.
    var pending: Set<String> { busy }

    /// The `Items` of `collection` changed: announces the list now (before returning, so it keeps its place among
    /// the other signals), or once the spacing has passed.
    func itemsChanged(_ collection: String) async {
        guard !busy.contains(collection) else {
            dirty.insert(collection)
            return
        }
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
        let start = clock.now
        await send(collection)
        let end = clock.now
        lastSent[collection] = end
        spacing[collection] = min((end - start) * Self.costMultiple, Self.maximumSpacing)
        if dirty.remove(collection) != nil {
            scheduleSend(collection)
        } else {
            busy.remove(collection)
        }
    }
}

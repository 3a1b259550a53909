// SPDX-License-Identifier: Apache-2.0
// Locking on a session event through the store: what the policy selects locks, in one step; the rest stays open.

import Foundation
import SecretServiceDaemon
import SecretStore
import Testing

@Suite("Locking on session events")
struct SessionEventLockTests {
    @Test("lockCollections locks the selected unlocked collections and reports only those")
    func selected() async throws {
        let store = SecretStore(usageClock: UsageClock(ManualClock()))
        for id in ["a", "b", "c"] { try await addCollection(id, to: store) }
        try await store.setLocked("c", true)
        let policy = AutoLockPolicy(collections: ["a": .init(onSleep: true), "b": .init(onScreenLock: true),
                                                  "c": .init(onSleep: true)])
        let locked = await store.lockCollections { policy.locks(on: .sleep, collection: $0, isInMemory: $1) }
        #expect(locked == ["a"])  // c was locked already
        #expect(try await store.collectionInfo("a").isLocked)
        #expect(try await !store.collectionInfo("b").isLocked)
        #expect(await store.lockCollections { policy.locks(on: .sleep, collection: $0, isInMemory: $1) }.isEmpty)
        #expect(await store.lockCollections { policy.locks(on: .screenLock, collection: $0, isInMemory: $1) } == ["b"])
    }
}

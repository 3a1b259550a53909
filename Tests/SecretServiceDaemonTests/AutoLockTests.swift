// SPDX-License-Identifier: Apache-2.0
// The AutoLocker against a real store on a manual clock: idle and maximum times, overrides, wake-ups, signals.

import DBusWire
import Foundation
import Logging
import SecretCrypto
import SecretServiceDaemon
import SecretServiceProtocol
import SecretStore
import Testing

typealias Sweep = AutoLocker<ManualClock>.Sweep

extension Duration {
    fileprivate static func minutes(_ count: Int) -> Duration { .seconds(60 * count) }
}

/// Runs an AutoLocker over `store` while `body` runs, handing `body` every sweep in order. The store must hold no
/// unlocked collection yet, so each later sweep has exactly one cause: one unlock (or creation), or one expired timer.
func withAutoLocker(_ store: SecretStore, _ clock: ManualClock, _ policy: AutoLockPolicy,
                    _ body: (inout AsyncStream<Sweep>.Iterator) async throws -> Void) async throws {
    let (stream, sink) = AsyncStream.makeStream(of: Sweep.self)
    let locker = AutoLocker(store: store, policy: policy, clock: clock, logger: Logger(label: "test"),
                            onSweep: { sink.yield($0) })
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await locker.run() }
        var sweeps = stream.makeAsyncIterator()
        #expect(await sweeps.next() == Sweep(locked: [], next: nil))
        try await body(&sweeps)
        group.cancelAll()
    }
}

/// An in-memory collection with one item; returns the item.
@discardableResult
func addCollection(_ id: String, to store: SecretStore) async throws -> String {
    _ = try await store.createCollection(label: id, inMemory: true, preferredID: id)
    let secret = StoredSecret(value: try SecretBytes(copying: Array("s3cret".utf8)), contentType: "text/plain")
    return try await store.createItem(in: id, label: "item", attributes: [:], secret: secret, replace: false).id
}

@Suite("Auto-lock", .timeLimit(.minutes(1)))
struct AutoLockTests {
    let clock = ManualClock()
    let store: SecretStore

    init() {
        store = SecretStore(usageClock: UsageClock(clock))
    }

    func at(_ offset: Duration) -> ManualClock.Instant { clock.start.advanced(by: offset) }

    func isLocked(_ id: String) async throws -> Bool { try await store.collectionInfo(id).isLocked }

    @Test("an idle collection locks when its idle time runs out")
    func idleLock() async throws {
        let policy = AutoLockPolicy(defaults: AutoLockSettings(idle: .after(.minutes(10))), collections: ["a": .init()])
        try await withAutoLocker(store, clock, policy) { sweeps in
            try await addCollection("a", to: store)
            #expect(await sweeps.next() == Sweep(locked: [], next: at(.minutes(10))))
            #expect(try await !isLocked("a"))
            clock.advance(by: .minutes(10))
            #expect(await sweeps.next() == Sweep(locked: ["a"], next: nil))
            #expect(try await isLocked("a"))
        }
    }

    @Test("a read or a write in between postpones the idle lock")
    func usePostpones() async throws {
        let policy = AutoLockPolicy(defaults: AutoLockSettings(idle: .after(.minutes(10))), collections: ["a": .init()])
        try await withAutoLocker(store, clock, policy) { sweeps in
            let item = try await addCollection("a", to: store)
            #expect(await sweeps.next() == Sweep(locked: [], next: at(.minutes(10))))
            clock.advance(by: .minutes(4))
            try await store.setLabel(collection: "a", item: item, to: "renamed")
            clock.advance(by: .minutes(6))
            // Woken at the old deadline, the locker finds the write and waits for the new one instead.
            #expect(await sweeps.next() == Sweep(locked: [], next: at(.minutes(14))))
            #expect(try await !isLocked("a"))
            _ = try await store.secret(collection: "a", item: item)
            clock.advance(by: .minutes(4))
            #expect(await sweeps.next() == Sweep(locked: [], next: at(.minutes(20))))
            clock.advance(by: .minutes(6))
            #expect(await sweeps.next() == Sweep(locked: ["a"], next: nil))
            #expect(try await isLocked("a"))
        }
    }

    @Test("lock-after locks a busy collection anyway")
    func maximumTime() async throws {
        let policy = AutoLockPolicy(
            defaults: AutoLockSettings(idle: .after(.minutes(10)), unlocked: .after(.minutes(25))),
            collections: ["a": .init()])
        try await withAutoLocker(store, clock, policy) { sweeps in
            let item = try await addCollection("a", to: store)
            #expect(await sweeps.next() == Sweep(locked: [], next: at(.minutes(10))))
            clock.advance(by: .minutes(5))
            _ = try await store.secret(collection: "a", item: item)
            // Read every five minutes: the idle deadline keeps moving, lock-after does not.
            for expected in [15, 20, 25] {
                clock.advance(by: .minutes(5))
                #expect(await sweeps.next() == Sweep(locked: [], next: at(.minutes(expected))))
                _ = try await store.secret(collection: "a", item: item)
            }
            clock.advance(by: .minutes(5))
            #expect(await sweeps.next() == Sweep(locked: ["a"], next: nil))
        }
    }

    @Test("off never locks, and the defaults leave unnamed in-memory collections alone")
    func off() async throws {
        let policy = AutoLockPolicy(
            defaults: AutoLockSettings(idle: .after(.minutes(10))),
            collections: ["kept": AutoLockSettings(idle: .off, unlocked: .off), "control": .init()])
        try await withAutoLocker(store, clock, policy) { sweeps in
            try await addCollection("kept", to: store)
            #expect(await sweeps.next() == Sweep(locked: [], next: nil))
            try await addCollection("unnamed", to: store)
            #expect(await sweeps.next() == Sweep(locked: [], next: nil))
            try await addCollection("control", to: store)
            #expect(await sweeps.next() == Sweep(locked: [], next: at(.minutes(10))))
            clock.advance(by: .minutes(10))
            #expect(await sweeps.next() == Sweep(locked: ["control"], next: nil))
            #expect(try await !isLocked("kept"))
            #expect(try await !isLocked("unnamed"))
        }
        #expect(!AutoLockPolicy.off.locksAnything)
        #expect(!AutoLockPolicy(defaults: AutoLockSettings(idle: .off), collections: ["a": .init(unlocked: .off)])
            .locksAnything)
        #expect(AutoLockPolicy(collections: ["a": .init(unlocked: .after(.seconds(1)))]).locksAnything)
    }

    @Test("a collection's section beats the defaults, and an earlier new deadline wakes the locker")
    func override() async throws {
        let policy = AutoLockPolicy(
            defaults: AutoLockSettings(idle: .after(.minutes(10)), unlocked: .after(.minutes(60))),
            collections: ["a": AutoLockSettings(idle: .after(.minutes(30))), "b": .init()])
        #expect(policy.timeouts(for: "a", isInMemory: true) == LockTimeouts(idle: .minutes(30), unlocked: .minutes(60)))
        #expect(policy.timeouts(for: "login", isInMemory: false) == LockTimeouts(idle: .minutes(10),
                                                                                 unlocked: .minutes(60)))
        #expect(policy.timeouts(for: "session", isInMemory: true) == .never)
        try await withAutoLocker(store, clock, policy) { sweeps in
            try await addCollection("a", to: store)
            #expect(await sweeps.next() == Sweep(locked: [], next: at(.minutes(30))))
            // The locker sleeps until minute 30; creating b brings the next deadline to minute 10.
            try await addCollection("b", to: store)
            #expect(await sweeps.next() == Sweep(locked: [], next: at(.minutes(10))))
            clock.advance(by: .minutes(10))
            #expect(await sweeps.next() == Sweep(locked: ["b"], next: at(.minutes(30))))
            #expect(try await !isLocked("a"))
            clock.advance(by: .minutes(20))
            #expect(await sweeps.next() == Sweep(locked: ["a"], next: nil))
        }
    }

    @Test("unlocking again restarts both timers")
    func unlockRestarts() async throws {
        let policy = AutoLockPolicy(
            defaults: AutoLockSettings(idle: .after(.minutes(45)), unlocked: .after(.minutes(60))),
            collections: ["a": .init()])
        try await withAutoLocker(store, clock, policy) { sweeps in
            try await addCollection("a", to: store)
            #expect(await sweeps.next() == Sweep(locked: [], next: at(.minutes(45))))
            clock.advance(by: .minutes(45))
            #expect(await sweeps.next() == Sweep(locked: ["a"], next: nil))
            clock.advance(by: .minutes(30))
            try await store.setLocked("a", false)
            #expect(await sweeps.next() == Sweep(locked: [], next: at(.minutes(120))))
            clock.advance(by: .minutes(45))
            #expect(await sweeps.next() == Sweep(locked: ["a"], next: nil))
        }
    }

    @Test("an auto-locked persistent collection forgets its keys until unlocked with its password")
    func persistent() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-autolock-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = SecretStore(directory: directory,
                                keyDerivation: Argon2idParameters(iterations: 1, memoryKiB: 256, parallelism: 1),
                                usageClock: UsageClock(clock))
        _ = try await store.loadCollections()
        let password = try SecretBytes(copying: Array("pw".utf8))
        // The defaults reach persistent collections without a section naming them.
        let policy = AutoLockPolicy(defaults: AutoLockSettings(idle: .after(.minutes(5))))
        try await withAutoLocker(store, clock, policy) { sweeps in
            _ = try await store.createCollection(label: "Login", alias: "", password: password, preferredID: "login")
            #expect(await sweeps.next() == Sweep(locked: [], next: at(.minutes(5))))
            let secret = StoredSecret(value: try SecretBytes(copying: Array("s3cret".utf8)), contentType: "text/plain")
            let item = try await store.createItem(in: "login", label: "mail", attributes: ["a": "b"], secret: secret,
                                                  replace: false).id
            clock.advance(by: .minutes(5))
            #expect(await sweeps.next() == Sweep(locked: ["login"], next: nil))
            await #expect {
                _ = try await store.secret(collection: "login", item: item)
            } throws: { error in
                if case .isLocked = error as? SecretServiceError { true } else { false }
            }
            #expect(try await store.itemInfo(collection: "login", item: item).label == "")
            #expect(try await store.unlock("login", password: password))
            #expect(await sweeps.next() == Sweep(locked: [], next: at(.minutes(10))))
            #expect(try await store.secret(collection: "login", item: item).value.copyBytes() == Array("s3cret".utf8))
        }
    }

    @Test("an automatic lock is announced: PropertiesChanged for Locked and CollectionChanged")
    func signals() async throws {
        let sender = CapturingSender()
        let router = Router(store: store, prompter: FixedPrompter.autoAccept, sender: sender,
                            logger: Logger(label: "test"))
        let policy = AutoLockPolicy(defaults: AutoLockSettings(unlocked: .after(.minutes(1))), collections: ["a": .init()])
        let path: ObjectPath = "/org/freedesktop/secrets/collection/a"
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await router.publishChanges() }
            try await withAutoLocker(store, clock, policy) { sweeps in
                try await addCollection("a", to: store)
                #expect(await sweeps.next() == Sweep(locked: [], next: at(.minutes(1))))
                clock.advance(by: .minutes(1))
                #expect(await sweeps.next() == Sweep(locked: ["a"], next: nil))
            }
            let changed = await sender.waitForMessage {
                $0.member == "PropertiesChanged" && $0.path == path && $0.body[1].variantDictionary?["Locked"] != nil
            }
            #expect(changed.body[1].variantDictionary == ["Locked": .boolean(true)])
            await sender.waitForMessage {
                $0.member == "CollectionChanged" && $0.path == SecretServiceNames.servicePath
                    && $0.body == [.objectPath(path)]
            }
            group.cancelAll()
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// A collection's announcements after a burst of changes: sent at once, then once more with every later change.

@testable import SecretServiceDaemon
import SecretStore
import Testing

/// Holds each send until the test lets it finish, so changes can be made while an announcement is on its way.
private actor Turnstile {
    private var opened = 0
    private var waiter: CheckedContinuation<Void, Never>?

    func pass() async {
        if opened > 0 {
            opened -= 1
            return
        }
        await withCheckedContinuation { waiter = $0 }
    }

    func open() {
        if let waiter {
            self.waiter = nil
            waiter.resume()
        } else {
            opened += 1
        }
    }
}

private struct Announcement: Equatable {
    let collection: String
    let properties: Set<CollectionProperty>
}

@Suite("Collection change coalescing")
struct CollectionChangeCoalescerTests {
    @Test("a burst of changes is announced at once and then once more with every property changed meanwhile",
          .timeLimit(.minutes(1)))
    func burst() async {
        let (sent, sentSink) = AsyncStream.makeStream(of: Announcement.self)
        let turnstile = Turnstile()
        let coalescer = CollectionChangeCoalescer { collection, properties in
            sentSink.yield(Announcement(collection: collection, properties: properties))
            await turnstile.pass()
        }
        var announcements = sent.makeAsyncIterator()

        let first = Task { await coalescer.changed("login", [.items, .modified]) }
        // The first change is announced at once.
        #expect(await announcements.next() == Announcement(collection: "login", properties: [.items, .modified]))
        for _ in 0..<9 { await coalescer.changed("login", [.items, .modified]) }  // while that one is on its way
        await coalescer.changed("login", [.label])
        #expect(await coalescer.pending == ["login"])
        await turnstile.open()
        await first.value

        // The ten changes are covered by one more announcement, after the spacing, naming all they changed.
        #expect(await announcements.next()
            == Announcement(collection: "login", properties: [.items, .modified, .label]))
        await turnstile.open()
        // Nothing of the burst is left over: a later change is announced on its own.
        await coalescer.changed("login", [.locked])
        #expect(await announcements.next() == Announcement(collection: "login", properties: [.locked]))
        await turnstile.open()
    }

    @Test("changes right after an announcement wait for the spacing's floor, then go out together",
          .timeLimit(.minutes(1)))
    func floor() async throws {
        let clock = ContinuousClock()
        // Each send's own start and end, so the gap measured is the one the coalescer keeps, not the test's wake-ups.
        let (sent, sentSink) = AsyncStream.makeStream(
            of: (announcement: Announcement, start: ContinuousClock.Instant, end: ContinuousClock.Instant).self)
        let coalescer = CollectionChangeCoalescer { collection, properties in
            let start = clock.now
            sentSink.yield((Announcement(collection: collection, properties: properties), start, clock.now))
        }
        var announcements = sent.makeAsyncIterator()
        await coalescer.changed("login", [.modified])
        let first = try #require(await announcements.next())
        #expect(first.announcement == Announcement(collection: "login", properties: [.modified]))
        await coalescer.changed("login", [.items])
        await coalescer.changed("login", [.locked])
        let second = try #require(await announcements.next())
        #expect(second.announcement == Announcement(collection: "login", properties: [.items, .locked]))
        #expect(second.start - first.end >= CollectionChangeCoalescer.minimumSpacing)
    }

    @Test("a costly announcement holds the next one back a hundred times its cost, so lists take a hundredth of the time",
          .timeLimit(.minutes(1)))
    func costSpacing() async throws {
        let clock = ContinuousClock()
        typealias Span = (start: ContinuousClock.Instant, end: ContinuousClock.Instant)
        let (sent, sentSink) = AsyncStream.makeStream(of: Span.self)
        let coalescer = CollectionChangeCoalescer { _, _ in
            let start = clock.now
            // The cost of building and sending a long list, as the daemon's own clock sees it. A millisecond's
            // hundredfold stays under the spacing's ceiling even when a slow or preempted run stretches it fourfold.
            while clock.now - start < .milliseconds(1) {}
            sentSink.yield((start, clock.now))
        }
        var announcements = sent.makeAsyncIterator()
        await coalescer.changed("login", [.items])
        let first = try #require(await announcements.next())
        await coalescer.changed("login", [.items])
        let second = try #require(await announcements.next())
        // The coalescer times the whole send, so its cost is at least the span seen here; the ceiling still applies.
        let cost = first.end - first.start
        #expect(second.start - first.end
            >= min(cost * CollectionChangeCoalescer.costMultiple, CollectionChangeCoalescer.maximumSpacing))
        #expect(cost * CollectionChangeCoalescer.costMultiple > CollectionChangeCoalescer.minimumSpacing)
        #expect(second.start - first.end <= CollectionChangeCoalescer.maximumSpacing + .seconds(5))
    }

    @Test("collections are spaced independently", .timeLimit(.minutes(1)))
    func independentCollections() async {
        let (sent, sentSink) = AsyncStream.makeStream(of: String.self)
        let coalescer = CollectionChangeCoalescer { collection, _ in sentSink.yield(collection) }
        var lists = sent.makeAsyncIterator()
        await coalescer.changed("login", [.items])
        await coalescer.changed("work", [.items])
        #expect(await lists.next() == "login")
        #expect(await lists.next() == "work")
    }
}

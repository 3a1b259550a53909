// SPDX-License-Identifier: Apache-2.0
// The Items list after a burst of changes: sent at once, then once more with every later change, not once each.

@testable import SecretServiceDaemon
import Testing

/// Holds each send until the test lets it finish, so changes can be made while a list is on its way.
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

@Suite("Items list coalescing")
struct ItemsListCoalescerTests {
    @Test("a burst of changes sends the list at once and then once more, not once per change",
          .timeLimit(.minutes(1)))
    func burst() async {
        let (sent, sentSink) = AsyncStream.makeStream(of: String.self)
        let turnstile = Turnstile()
        let coalescer = ItemsListCoalescer { collection in
            sentSink.yield(collection)
            await turnstile.pass()
        }
        var lists = sent.makeAsyncIterator()

        let first = Task { await coalescer.itemsChanged("login") }
        #expect(await lists.next() == "login")  // the first change is announced at once
        for _ in 0..<9 { await coalescer.itemsChanged("login") }  // changes while that list is on its way
        #expect(await coalescer.pending == ["login"])
        await turnstile.open()
        await first.value

        // The nine changes are covered by one more list, sent after the spacing with the value current then.
        #expect(await lists.next() == "login")
        await turnstile.open()
        // Then nothing more is scheduled (a third list would keep "login" pending until the time limit fails this).
        while await !coalescer.pending.isEmpty { await Task.yield() }
    }

    @Test("collections are spaced independently", .timeLimit(.minutes(1)))
    func independentCollections() async {
        let (sent, sentSink) = AsyncStream.makeStream(of: String.self)
        let coalescer = ItemsListCoalescer { collection in sentSink.yield(collection) }
        var lists = sent.makeAsyncIterator()
        await coalescer.itemsChanged("login")
        await coalescer.itemsChanged("work")
        #expect(await lists.next() == "login")
        #expect(await lists.next() == "work")
    }
}

// SPDX-License-Identifier: Apache-2.0
// Work for one key runs one at a time (the Secret portal's find-or-create per application); other keys run alongside.

@testable import SecretServiceDaemon
import Testing

/// The order things happened in.
private actor EventLog {
    private(set) var events: [String] = []
    private var watchers: [(String, CheckedContinuation<Void, Never>)] = []

    func record(_ event: String) {
        events.append(event)
        watchers.removeAll { name, waiter in
            guard name == event else { return false }
            waiter.resume()
            return true
        }
    }

    func waitFor(_ event: String) async {
        if events.contains(event) { return }
        await withCheckedContinuation { watchers.append((event, $0)) }
    }
}

/// A gate the first holder waits at until the test opens it.
private actor Gate {
    private var isOpen = false
    private var waiter: CheckedContinuation<Void, Never>?

    func pass() async {
        if isOpen { return }
        await withCheckedContinuation { waiter = $0 }
    }

    func open() {
        isOpen = true
        waiter?.resume()
        waiter = nil
    }
}

@Suite("Keyed exclusion", .timeLimit(.minutes(1)))
struct KeyedExclusionTests {
    @Test("a second holder of a key starts only after the first finishes, while another key goes ahead")
    func oneAtATimePerKey() async {
        let exclusion = KeyedExclusion()
        let log = EventLog()
        let gate = Gate()
        let first = Task {
            await exclusion.run("org.example.App") {
                await log.record("first started")
                await gate.pass()
                await log.record("first finished")
            }
        }
        await log.waitFor("first started")
        let second = Task {
            await exclusion.run("org.example.App") { await log.record("second started") }
        }
        // Another application's request is not held up by the first one, still waiting at the gate.
        await exclusion.run("org.example.Other") { await log.record("other ran") }
        await gate.open()
        await first.value
        await second.value
        #expect(await log.events == ["first started", "other ran", "first finished", "second started"])
    }
}

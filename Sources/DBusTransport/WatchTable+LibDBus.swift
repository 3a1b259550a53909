// SPDX-License-Identifier: Apache-2.0
// The libdbus watches (file descriptors) and timeouts of one connection, turned into poll input and timers.

internal import CDBus
import Glibc

/// Tracks the `DBusWatch`es and `DBusTimeout`s libdbus hands out through its watch and timeout functions, builds
/// the `pollfd` list from the enabled watches, and fires timeouts when due (pending-call timeouts depend on it).
///
/// Loop-thread confined: libdbus calls the add/remove/toggle functions only from calls this module makes on the
/// loop thread.
final class WatchTable {
    private struct Timer {
        let timeout: OpaquePointer
        /// `nil` while libdbus has the timeout disabled.
        var deadline: ContinuousClock.Instant?
    }

    private var watches: [OpaquePointer] = []
    private var timers: [Timer] = []
    /// The watches whose descriptors the last `preparePoll` appended, in order.
    private var polled: [OpaquePointer] = []

    // MARK: - libdbus callbacks

    func add(watch: OpaquePointer) { watches.append(watch) }
    func remove(watch: OpaquePointer) { watches.removeAll { $0 == watch } }

    func add(timeout: OpaquePointer) {
        timers.append(Timer(timeout: timeout, deadline: Self.deadline(of: timeout)))
    }

    func remove(timeout: OpaquePointer) { timers.removeAll { $0.timeout == timeout } }

    /// libdbus enabled, disabled or changed the interval of a timeout: restart it.
    func toggle(timeout: OpaquePointer) {
        guard let index = timers.firstIndex(where: { $0.timeout == timeout }) else { return }
        timers[index].deadline = Self.deadline(of: timeout)
    }

    private static func deadline(of timeout: OpaquePointer) -> ContinuousClock.Instant? {
        guard dbus_timeout_get_enabled(timeout) != 0 else { return nil }
        return .now + .milliseconds(Int(dbus_timeout_get_interval(timeout)))
    }

    // MARK: - Polling

    /// Appends one `pollfd` per enabled watch and returns the milliseconds until the next timeout (`-1`: none).
    func preparePoll(into descriptors: inout [pollfd]) -> Int32 {
        polled.removeAll(keepingCapacity: true)
        let readable = DBUS_WATCH_READABLE.rawValue, writable = DBUS_WATCH_WRITABLE.rawValue
        for watch in watches where dbus_watch_get_enabled(watch) != 0 {
            let flags = dbus_watch_get_flags(watch)
            var events: Int16 = 0
            if flags & readable != 0 { events |= Int16(POLLIN) }
            if flags & writable != 0 { events |= Int16(POLLOUT) }
            descriptors.append(pollfd(fd: dbus_watch_get_unix_fd(watch), events: events, revents: 0))
            polled.append(watch)
        }
        guard let next = timers.compactMap(\.deadline).min() else { return -1 }
        let remaining = ContinuousClock.now.duration(to: next)
        guard remaining > .zero else { return 0 }
        let (seconds, attoseconds) = remaining.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }

    /// Hands ready descriptors to libdbus, then fires the timeouts that are due.
    /// The corresponding C functions are `dbus_watch_handle` and `dbus_timeout_handle`.
    func handlePoll(_ descriptors: ArraySlice<pollfd>) {
        for (watch, descriptor) in zip(polled, descriptors) where descriptor.revents != 0 {
            // An earlier dbus_watch_handle may have removed (and freed) this watch.
            guard watches.contains(watch) else { continue }
            var flags: UInt32 = 0
            let revents = Int32(descriptor.revents)
            if revents & Int32(POLLIN) != 0 { flags |= DBUS_WATCH_READABLE.rawValue }
            if revents & Int32(POLLOUT) != 0 { flags |= DBUS_WATCH_WRITABLE.rawValue }
            if revents & Int32(POLLHUP) != 0 { flags |= DBUS_WATCH_HANGUP.rawValue }
            if revents & Int32(POLLERR) != 0 { flags |= DBUS_WATCH_ERROR.rawValue }
            _ = dbus_watch_handle(watch, flags)
        }
        polled.removeAll(keepingCapacity: true)
        fireDueTimeouts()
    }

    private func fireDueTimeouts() {
        // Most turns have no timer at all; reading the clock and building arrays then is wasted on every message.
        guard !timers.isEmpty else { return }
        let now = ContinuousClock.now
        guard timers.contains(where: { $0.deadline.map { $0 <= now } ?? false }) else { return }
        let due = timers.filter { $0.deadline.map { $0 <= now } ?? false }.map(\.timeout)
        for timeout in due {
            // Handling one timeout may remove others; libdbus timeouts repeat until removed, so re-arm first.
            guard let index = timers.firstIndex(where: { $0.timeout == timeout }) else { continue }
            timers[index].deadline = Self.deadline(of: timeout)
            _ = dbus_timeout_handle(timeout)
        }
    }

    /// Forgets everything (after the connection was released).
    func removeAll() {
        watches.removeAll()
        timers.removeAll()
        polled.removeAll()
    }
}

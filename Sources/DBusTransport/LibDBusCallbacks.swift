// SPDX-License-Identifier: Apache-2.0
// The C function pointers handed to libdbus; each forwards to the loop-confined object in its user data.

internal import CDBus

/// C callbacks registered with libdbus. They are called on the loop thread (libdbus calls them only from
/// functions this module calls there), and their user data is an unretained pointer to an object that outlives
/// the registration: the ``ConnectionCore`` or its ``WatchTable``.
enum LibDBusCallbacks {
    private static func core(_ data: UnsafeMutableRawPointer?) -> ConnectionCore {
        Unmanaged<ConnectionCore>.fromOpaque(data!).takeUnretainedValue()
    }

    private static func table(_ data: UnsafeMutableRawPointer?) -> WatchTable {
        Unmanaged<WatchTable>.fromOpaque(data!).takeUnretainedValue()
    }

    // MARK: - Messages

    /// The connection filter: sees every incoming message before the object tree.
    static let filter: DBusHandleMessageFunction = { _, message, data in
        core(data).filter(message!)
    }

    /// The fallback object-path handler behind ``Connection/registerObjectTree(at:)``.
    static let objectTree: DBusObjectPathMessageFunction = { _, message, data in
        core(data).handleObjectMessage(message!)
    }

    /// Completion of a pending call; the user data is a retained ``PendingCall``.
    static let pendingCallNotify: DBusPendingCallNotifyFunction = { _, data in
        let call = Unmanaged<PendingCall>.fromOpaque(data!).takeUnretainedValue()
        call.core.completeCall(call.id)
    }

    /// Releases the ``PendingCall`` a notify registration retained.
    static let releasePendingCall: DBusFreeFunction = { data in
        Unmanaged<PendingCall>.fromOpaque(data!).release()
    }

    // MARK: - Main loop integration

    static let addWatch: DBusAddWatchFunction = { watch, data in
        table(data).add(watch: watch!)
        return 1
    }

    static let removeWatch: DBusRemoveWatchFunction = { watch, data in
        table(data).remove(watch: watch!)
    }

    /// Enabled state is re-read on every poll, so a toggle needs no bookkeeping.
    static let toggleWatch: DBusWatchToggledFunction = { _, _ in }

    static let addTimeout: DBusAddTimeoutFunction = { timeout, data in
        table(data).add(timeout: timeout!)
        return 1
    }

    static let removeTimeout: DBusRemoveTimeoutFunction = { timeout, data in
        table(data).remove(timeout: timeout!)
    }

    static let toggleTimeout: DBusTimeoutToggledFunction = { timeout, data in
        table(data).toggle(timeout: timeout!)
    }

    static let wakeUp: DBusWakeupMainFunction = { data in
        core(data).loop.wake()
    }

    /// Dispatching happens on every loop iteration; a status change only needs the loop awake.
    static let dispatchStatusChanged: DBusDispatchStatusFunction = { _, _, data in
        core(data).loop.wake()
    }
}

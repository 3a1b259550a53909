// SPDX-License-Identifier: Apache-2.0
// Which calls wait for an unlock announced at start-up, and which go ahead.

import DBusWire
import Logging
import SecretServiceProtocol
import SecretStore

/// cofferd claims its bus name before `--unlock`'s key derivation ends. Calls that read or change a collection whose
/// unlock is under way wait for it, so they see it unlocked (or locked after a wrong password) rather than a locked
/// collection and a prompt for a password already given; calls on other collections, sessions and prompts go ahead.
enum PendingUnlockGate {
    /// The collections `member` on `path` may touch; `nil` when it touches none of their contents or lock state.
    static func scope(path: ObjectPath, interface: InterfaceName?, member: MemberName)
        -> SecretStore.UnlockWaitScope? {
        switch SecretObjectPath(path) {
        case .collection(let id)?, .item(let id, _)?:
            return .collection(id)
        case .alias(let name)?, .aliasItem(let name, _)?:
            return .alias(name)
        case .service?:
            // Members that take collections by path or attributes say so in their declaration; opening a session,
            // creating a collection, setting aliases and properties touch no collection's contents.
            let interfaces = SecretInterfaces.service
            let served = interface.map { name in interfaces.filter { $0.name == name } } ?? interfaces
            let method = served.lazy.compactMap { $0.method(member) }.first
            return method?.waitsForUnlocks == true ? .all : nil
        case .session?, .prompt?, nil:
            return nil
        }
    }

    /// Waits, when a call of `member` on `path` touches a collection whose announced unlock is under way, until
    /// that unlock ends.
    static func waitIfNeeded(_ path: ObjectPath, _ interface: InterfaceName?, _ member: MemberName,
                             context: DaemonContext) async {
        guard let scope = scope(path: path, interface: interface, member: member) else { return }
        let logger = context.logger
        // Built only when there is a wait: this runs for every call.
        let details: @Sendable () -> Logger.Metadata = { ["dbus.member": "\(member)", "dbus.path": "\(path)"] }
        guard await context.store.waitForPendingUnlocks(touching: scope, beforeWaiting: {
            logger.debug("the call waits for the unlock in progress", metadata: details())
        }) else { return }
        logger.debug("the call waited for the unlock in progress", metadata: details())
    }
}

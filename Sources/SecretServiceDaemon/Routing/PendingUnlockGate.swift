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
            // The service's searches, secret reads and lock changes take paths or attributes across collections,
            // and an alias read names a collection an unlock may yet find damaged and take out of service; opening a
            // session, creating a collection, setting aliases and properties touch no collection's contents.
            if interface == SecretServiceNames.gnomeInternalInterface { return .all }
            switch member.rawValue {
            case "SearchItems", "GetSecrets", "GetItemProperties", "Unlock", "Lock", "ReadAlias",
                 "ChangeWithMasterPassword", "ChangeWithPrompt", "UnlockWithMasterPassword":
                return .all
            default:
                return nil
            }
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

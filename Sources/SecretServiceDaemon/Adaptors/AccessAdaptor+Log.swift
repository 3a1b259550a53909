// io.coffer.Access
// SPDX-License-Identifier: Apache-2.0
// ReadLog: the access log as `coffer access log` shows it.

import DBusWire
import SecretServiceProtocol

extension AccessAdaptor {
    /// One entry on the wire: time (seconds since 1970), outcome, the application's identity and the name prompts
    /// show for it, the process id, the item or collection (`/` for none), the identity that asked for the
    /// change when another one did (`""` otherwise), how many times it happened and the last of those times.
    static let logEntry = DBusType.structure([.uint64, .string, .string, .string, .uint32, .objectPath, .string,
                                              .uint32, .uint64])

    /// `ReadLog(t since) → (a(tsssuosut) entries, u locked, u keyGone, as problems)`: the entries at or after
    /// `since` that the unlocked collections open, oldest first; how many entries belong to locked collections, and
    /// how many to collections deleted since, whose key is gone; and
    /// every sign of damage or tampering found. The log holds identities and ids, which `ListAccess` shows any client
    /// too; never a label or a secret.
    func readLog(since: UInt64) async throws(SecretServiceError) -> HandlerResult {
        let reading = await context.access.log.entries(since: since)
        let entries = reading.entries.map { entry -> DBusValue in
            let object: ObjectPath = entry.collection.isEmpty ? .root
                : entry.item.isEmpty ? Paths.collection(entry.collection) : Paths.item(entry.collection, entry.item)
            return .structure([
                .uint64(entry.time), .string(entry.outcome.rawValue), .string(entry.application),
                .string(AppIdentity(entry.application)?.displayName ?? entry.application),
                .uint32(entry.processID), .objectPath(object), .string(entry.requester), .uint32(entry.count),
                .uint64(entry.lastTime),
            ])
        }
        return HandlerResult([
            .array(Self.logEntry, entries), .uint32(UInt32(clamping: reading.locked)),
            .uint32(UInt32(clamping: reading.keyGone)), .array(.string, reading.problems.map(DBusValue.string)),
        ])
    }
}

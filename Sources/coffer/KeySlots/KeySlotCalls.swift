// SPDX-License-Identifier: Apache-2.0
// Calls of cofferd's io.coffer.KeySlots interface: list, add and remove key slots, unlock with a slot's key.

import DBusTransport
import DBusWire
import SecretCrypto
import SecretServiceClient
import SecretServiceProtocol

/// The provider does not serve `io.coffer.KeySlots`.
struct InterfaceMissing: Error {}

/// One key slot as cofferd lists it.
struct KeySlotEntry: Encodable {
    var slot: UInt32
    var kind: String
}

extension SecretService {
    /// `ListKeySlots(o collection) → a(us)`.
    func keySlots(of collection: ObjectPath) async throws -> [KeySlotEntry] {
        let body = try await callKeySlots("ListKeySlots", [.objectPath(collection)])
        guard case .array(_, let entries)? = body.first else {
            throw SecretServiceClientError.unexpectedReply("ListKeySlots returned no list")
        }
        return try entries.map { entry in
            guard case .structure(let fields) = entry, fields.count == 2, let slot = fields[0].uint32,
                  let kind = fields[1].string
            else { throw SecretServiceClientError.unexpectedReply("ListKeySlots returned a malformed slot") }
            return KeySlotEntry(slot: slot, kind: kind)
        }
    }

    /// `AddKeySlot(o collection, (oayays) current, s kind, (oayays) key) → u`.
    func addKeySlot(to collection: ObjectPath, current: SecretBytes, kind: String, key: SecretBytes) async throws
        -> UInt32 {
        let body = try await callKeySlots("AddKeySlot", [
            .objectPath(collection), try session.encode(current, contentType: "text/plain").dbusValue, .string(kind),
            try session.encode(key, contentType: "application/octet-stream").dbusValue,
        ])
        guard let slot = body.first?.uint32 else {
            throw SecretServiceClientError.unexpectedReply("AddKeySlot returned no slot number")
        }
        return slot
    }

    /// `RemoveKeySlot(o collection, (oayays) current, u slot) → (b rekeyed, au unchanged)`.
    func removeKeySlot(_ slot: UInt32, from collection: ObjectPath, current: SecretBytes) async throws
        -> (rekeyed: Bool, unchanged: [UInt32]) {
        let body = try await callKeySlots("RemoveKeySlot", [
            .objectPath(collection), try session.encode(current, contentType: "text/plain").dbusValue, .uint32(slot),
        ])
        guard body.count == 2, let rekeyed = body[0].bool, case .array(_, let unchanged) = body[1] else {
            throw SecretServiceClientError.unexpectedReply("RemoveKeySlot returned an unexpected reply")
        }
        return (rekeyed, unchanged.compactMap(\.uint32))
    }

    /// `ChangePassword(o collection, (oayays) original, (oayays) password) → (b rekeyed, au unchanged)`, or `nil`
    /// when the provider has no `io.coffer.KeySlots` (gnome-keyring, KeePassXC): the caller then uses
    /// gnome-keyring's `ChangeWithMasterPassword`, which cannot report whether the master key was replaced.
    func changePasswordReporting(of collection: ObjectPath, from old: SecretBytes, to new: SecretBytes) async throws
        -> (rekeyed: Bool, unchanged: [UInt32])? {
        let body: [DBusValue]
        do {
            body = try await callKeySlots("ChangePassword", [
                .objectPath(collection), try session.encode(old, contentType: "text/plain").dbusValue,
                try session.encode(new, contentType: "text/plain").dbusValue,
            ], unknownIsNil: true)
        } catch is InterfaceMissing {
            return nil
        }
        guard body.count == 2, let rekeyed = body[0].bool, case .array(_, let unchanged) = body[1] else {
            throw SecretServiceClientError.unexpectedReply("ChangePassword returned an unexpected reply")
        }
        return (rekeyed, unchanged.compactMap(\.uint32))
    }

    /// `UnlockWithKeySlot(o collection, (oayays) key)`.
    func unlock(_ collection: ObjectPath, slotKey: SecretBytes) async throws {
        try await callKeySlots("UnlockWithKeySlot", [
            .objectPath(collection), try session.encode(slotKey, contentType: "application/octet-stream").dbusValue,
        ])
    }

    /// One call on `io.coffer.KeySlots`, with the client's error vocabulary; a provider without the interface (not
    /// cofferd) answers `UnknownMethod`, reported as "not supported".
    @discardableResult
    private func callKeySlots(_ member: MemberName, _ arguments: [DBusValue], unknownIsNil: Bool = false) async throws
        -> [DBusValue] {
        do {
            return try await callServiceObject(SecretServiceNames.keySlotsInterface, member, arguments)
        } catch let error as SecretServiceError
                    where unknownIsNil
                    && [ErrorName.unknownMethod, .unknownInterface, .unknownObject].contains(error.dbusError.name) {
            throw InterfaceMissing()
        }
    }
}

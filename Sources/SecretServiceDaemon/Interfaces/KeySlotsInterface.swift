// SPDX-License-Identifier: Apache-2.0
// Coffer's key-slot interface on the service object, as a declaration.

import DBusWire
import SecretServiceProtocol

extension SecretInterfaces {
    /// `io.coffer.KeySlots`: listing, adding and removing a collection's key slots, and unlocking with a slot's key,
    /// for `coffer key-slots` and `coffer unlock-keychain --recovery-key`. It lives beside
    /// `org.freedesktop.Secret.Service` on `/org/freedesktop/secrets`; `dbus/io.coffer.KeySlots.xml` must agree with
    /// it (a test compares them).
    public static let keySlots = InterfaceDescription(
        SecretServiceNames.keySlotsInterface,
        methods: [
            MethodDescription("ListKeySlots", in: [.init("collection", .objectPath)],
                              out: [.init("slots", .array(.structure([.uint32, .string])))]),
            MethodDescription("AddKeySlot", in: [
                .init("collection", .objectPath), .init("current", secret), .init("kind", .string),
                .init("key", secret),
            ], out: [.init("slot", .uint32)]),
            MethodDescription("RemoveKeySlot", in: [
                .init("collection", .objectPath), .init("current", secret), .init("slot", .uint32),
            ], out: [.init("rekeyed", .boolean), .init("unchanged", .array(.uint32))]),
            MethodDescription("ChangePassword", in: [
                .init("collection", .objectPath), .init("original", secret), .init("password", secret),
            ], out: [.init("rekeyed", .boolean), .init("unchanged", .array(.uint32))]),
            MethodDescription("UnlockWithKeySlot", in: [.init("collection", .objectPath), .init("key", secret)]),
        ])
}

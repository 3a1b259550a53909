// SPDX-License-Identifier: Apache-2.0
// gnome-keyring's private master-password interface on the service object, as a declaration.

import DBusWire
import SecretServiceProtocol

extension SecretInterfaces {
    /// `org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface`: creating, unlocking and re-keying password
    /// collections with passwords the caller supplies, for Seahorse and headless scripts. It lives beside
    /// `org.freedesktop.Secret.Service` on `/org/freedesktop/secrets`;
    /// `dbus/org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface.xml` must agree with it (a test compares them).
    public static let gnomeKeyringInternal = InterfaceDescription(
        SecretServiceNames.gnomeInternalInterface,
        methods: [
            MethodDescription("ChangeWithMasterPassword", in: [
                .init("collection", .objectPath), .init("original", secret), .init("master", secret),
            ]),
            MethodDescription("ChangeWithPrompt", in: [.init("collection", .objectPath)],
                              out: [.init("prompt", .objectPath)]),
            MethodDescription("CreateWithMasterPassword",
                              in: [.init("attributes", propertyMap), .init("master", secret)],
                              out: [.init("collection", .objectPath)]),
            MethodDescription("UnlockWithMasterPassword",
                              in: [.init("collection", .objectPath), .init("master", secret)]),
        ])
}

// SPDX-License-Identifier: Apache-2.0
// The Secret portal's backend interface, as a declaration.

import DBusWire
import SecretServiceProtocol

extension SecretInterfaces {
    /// `org.freedesktop.impl.portal.Secret` (xdg-desktop-portal's `data/org.freedesktop.impl.portal.Secret.xml`):
    /// the per-application secret a sandboxed application asks `org.freedesktop.portal.Secret` for. It lives on
    /// `/org/freedesktop/portal/desktop`; `dbus/org.freedesktop.impl.portal.Secret.xml` must agree with it (a test
    /// compares them).
    public static let portalSecret = InterfaceDescription(
        SecretServiceNames.portalSecretInterface,
        methods: [
            MethodDescription("RetrieveSecret", in: [
                .init("handle", .objectPath), .init("app_id", .string), .init("fd", .unixFD),
                .init("options", propertyMap),
            ], out: [.init("response", .uint32), .init("results", propertyMap)]),
        ],
        properties: [PropertyDescription("version", .uint32)])
}

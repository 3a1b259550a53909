// SPDX-License-Identifier: Apache-2.0
// Coffer's access-control interface on the service object, as a declaration.

import DBusWire
import SecretServiceProtocol

extension SecretInterfaces {
    /// `io.coffer.Access`: which application created each item of a collection and which others may use it, and
    /// taking an "always allow" back, for `coffer access`. It lives beside `org.freedesktop.Secret.Service` on
    /// `/org/freedesktop/secrets`; `dbus/io.coffer.Access.xml` must agree with it (a test compares them).
    public static let access = InterfaceDescription(
        SecretServiceNames.accessInterface,
        methods: [
            MethodDescription("ListAccess", in: [.init("collection", .objectPath)],
                              out: [.init("items", .array(.structure([.objectPath, .string, .array(.string)])))]),
            MethodDescription("Revoke", in: [
                .init("collection", .objectPath), .init("application", .string), .init("items", .array(.objectPath)),
            ], out: [.init("revoked", .array(.objectPath))]),
        ])
}

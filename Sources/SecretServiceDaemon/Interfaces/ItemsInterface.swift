// SPDX-License-Identifier: Apache-2.0
// Coffer's batch reads of items on the service object, as a declaration.

import DBusWire
import SecretServiceProtocol

extension SecretInterfaces {
    /// `io.coffer.Items`: the properties of many items in one call, which the Secret Service interface can only
    /// give one `GetAll` at a time. It lives beside `org.freedesktop.Secret.Service` on `/org/freedesktop/secrets`;
    /// `dbus/io.coffer.Items.xml` must agree with it (a test compares them).
    public static let items = InterfaceDescription(
        SecretServiceNames.itemsInterface,
        methods: [
            MethodDescription("GetItemProperties", in: [.init("items", .array(.objectPath))],
                              out: [.init("properties", .dictionary(key: .objectPath, value: propertyMap))]),
        ])
}

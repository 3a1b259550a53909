// SPDX-License-Identifier: Apache-2.0
// Coffer's own interface on the service object, as a declaration.

import DBusWire
import SecretServiceProtocol

extension SecretInterfaces {
    /// `io.coffer.Daemon`: what cofferd can tell about itself that the Secret Service has no member for (used by
    /// `coffer status`). It lives beside `org.freedesktop.Secret.Service` on `/org/freedesktop/secrets`;
    /// `dbus/io.coffer.Daemon.xml` must agree with it (a test compares them).
    public static let coffer = InterfaceDescription(
        SecretServiceNames.cofferInterface,
        methods: [
            MethodDescription("LastFailedPrompt", in: [], out: [.init("prompt", propertyMap)]),
            MethodDescription("RegisterPromptAgent", in: [.init("agent", .objectPath), .init("session", .objectPath)]),
        ])
}

// SPDX-License-Identifier: Apache-2.0
// Finds the system bus address the way libdbus does, without touching the environment.

import Glibc

/// Where the system bus lives.
enum SystemBusAddress {
    /// libdbus's compiled-in default (`DBUS_SYSTEM_BUS_DEFAULT_ADDRESS` on Debian and every systemd distribution).
    static let standard = "unix:path=/run/dbus/system_bus_socket"

    /// `DBUS_SYSTEM_BUS_ADDRESS` when set, so tests and containers can point at another bus; else ``standard``.
    static func fromEnvironment() -> String {
        if let address = getenv("DBUS_SYSTEM_BUS_ADDRESS").map({ String(cString: $0) }), !address.isEmpty {
            return address
        }
        return standard
    }
}

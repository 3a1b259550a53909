// SPDX-License-Identifier: Apache-2.0
// Finds the session bus address the way libdbus and sd-bus do, without touching the environment.

internal import CDBus
import Glibc

/// Where the session bus lives.
enum SessionBusAddress {
    /// `DBUS_SESSION_BUS_ADDRESS`, or else `unix:path=$XDG_RUNTIME_DIR/bus` when that socket exists.
    static func fromEnvironment() -> String? {
        if let address = getenv("DBUS_SESSION_BUS_ADDRESS").map({ String(cString: $0) }), !address.isEmpty {
            return address
        }
        guard let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !runtime.isEmpty else {
            return nil
        }
        let path = runtime + "/bus"
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else { return nil }
        guard let escaped = dbus_address_escape_value(path) else { return nil }
        defer { dbus_free(escaped) }
        return "unix:path=" + String(cString: escaped)
    }
}

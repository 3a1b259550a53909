// SPDX-License-Identifier: Apache-2.0
// The per-user and system directories where desktop sessions look for what starts a Secret Service provider.

import Foundation

/// The XDG base directories of the user coffer runs for, taken from the environment (so a test's scratch HOME is
/// honoured), with the defaults the XDG Base Directory specification gives.
struct UserDirectories: Sendable {
    var home: String
    var configHome: String
    var dataHome: String
    var stateHome: String
    var configDirs: [String]
    var dataDirs: [String]
    /// Prefixed to the fixed system paths (/etc/pam.d, /etc/systemd/user, /usr/lib/systemd/user): "" is the real
    /// system; tests point it at sample files. The XDG system directories come from the environment as usual.
    var systemRoot = ""

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        home = value("HOME") ?? NSHomeDirectory()
        configHome = value("XDG_CONFIG_HOME") ?? home + "/.config"
        dataHome = value("XDG_DATA_HOME") ?? home + "/.local/share"
        stateHome = value("XDG_STATE_HOME") ?? home + "/.local/state"
        configDirs = (value("XDG_CONFIG_DIRS") ?? "/etc/xdg").split(separator: ":").map(String.init)
        dataDirs = (value("XDG_DATA_DIRS") ?? "/usr/local/share:/usr/share").split(separator: ":").map(String.init)
    }

    /// The user's autostart directory, whose entries hide system entries of the same file name.
    var userAutostart: String { configHome + "/autostart" }
    /// System autostart directories, most important first.
    var systemAutostart: [String] { configDirs.map { $0 + "/autostart" } }
    /// The user's D-Bus service directory, searched before the system ones.
    var userServices: String { dataHome + "/dbus-1/services" }
    /// System D-Bus service directories, in search order.
    var systemServices: [String] { dataDirs.map { $0 + "/dbus-1/services" } }
    /// Where `systemctl --user mask` puts its `/dev/null` links.
    var userUnits: String { configHome + "/systemd/user" }
    /// Where PAM service files live.
    var pamDirectory: String { systemRoot + "/etc/pam.d" }
    /// Where packages and the administrator put user units (and their `.wants` links), as systemd --user searches.
    var systemUnits: [String] {
        [systemRoot + "/etc/systemd/user"] + configDirs.map { $0 + "/systemd/user" }
            + dataDirs.map { $0 + "/systemd/user" }
            + ["/usr/local/lib/systemd/user", "/usr/lib/systemd/user", "/lib/systemd/user"].map { systemRoot + $0 }
    }
    /// gnome-keyring's keyring files.
    var keyrings: String { dataHome + "/keyrings" }
    /// KeePassXC's settings.
    var keepassxcConfig: String { configHome + "/keepassxc/keepassxc.ini" }
    /// Where a cofferd started by takeover outside systemd writes its log.
    var cofferdLog: String { stateHome + "/coffer/cofferd.log" }
    /// Where takeover records what it changed, so that `--undo` can put it back.
    var takeoverState: String { configHome + "/coffer/takeover.json" }
}

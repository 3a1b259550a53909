// SPDX-License-Identifier: Apache-2.0
// Which of the daemon's environment variables a pinentry is given.

extension PinentryPrompter.Configuration {
    /// The variables a pinentry gets from the daemon's environment by default; nothing else is passed on.
    ///
    /// The daemon's environment is whatever its starter had (a login manager, systemd, a shell), possibly tokens
    /// and settings meant for other programs; a dialog program needs only these:
    /// - to reach the display: `DISPLAY`, `WAYLAND_DISPLAY`, `XAUTHORITY`, `XDG_RUNTIME_DIR` (where the Wayland and
    ///   bus sockets live), `XDG_SESSION_TYPE` (Qt picks X11 or Wayland by it) and `DBUS_SESSION_BUS_ADDRESS`
    ///   (pinentry-gnome3 asks the desktop's prompter over the bus);
    /// - for tty and curses pinentries: `TERM`, `GPG_TTY` and `PINENTRY_USER_DATA`, as gpg-agent passes them;
    /// - for the language of the dialog: `LANG`, `LANGUAGE` and every `LC_…`;
    /// - `HOME` (toolkits read their settings from it) and `PATH` (a pinentry may run helpers).
    static let inheritedVariables: Set<String> = [
        "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_RUNTIME_DIR", "XDG_SESSION_TYPE", "DBUS_SESSION_BUS_ADDRESS",
        "TERM", "GPG_TTY", "PINENTRY_USER_DATA",
        "LANG", "LANGUAGE",
        "HOME", "PATH",
    ]

    /// Whether a pinentry is given the variable `name` from the daemon's environment.
    static func isInherited(_ name: String) -> Bool {
        inheritedVariables.contains(name) || name.hasPrefix("LC_")
    }

    /// The part of `environment` a pinentry is given: the variables of ``inheritedVariables`` and `LC_…`.
    static func inherited(from environment: [String: String]) -> [String: String] {
        environment.filter { isInherited($0.key) }
    }
}

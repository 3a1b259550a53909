// SPDX-License-Identifier: Apache-2.0
// One thing besides cofferd that serves or would start org.freedesktop.secrets, and what takeover does about it.

/// A competing provider source found on this system for this user.
struct Competitor: Sendable, Encodable {
    enum Kind: String, Sendable, Encodable {
        case autostart, activation, systemd, keepassxc, pam
    }

    var kind: Kind
    /// The file that makes it compete (the system file, not the override).
    var path: String
    /// What it is and why it matters, for a person.
    var explanation: String
    /// Whether it takes the bus name before cofferd at the next login (doctor reports these as errors).
    var winsAtLogin: Bool
    /// What takeover changes to stop it; `nil` when it can only be reported (PAM needs root).
    var change: PlannedChange?
    /// The one-line manual fix.
    var fix: String
}

/// A change takeover makes for this user; each has an exact inverse recorded in ``AppliedChange``.
enum PlannedChange: Sendable, Equatable, Encodable {
    /// Create or replace a file in the user's own directories (an override, or KeePassXC's edited settings).
    case writeFile(path: String, content: String)
    /// `systemctl --user mask` a unit: a link to /dev/null in the user's unit directory.
    case maskUnit(name: String)

    var summary: String {
        switch self {
        case .writeFile(let path, _): "write \(path)"
        case .maskUnit(let name): "mask \(name) for this user (systemctl --user mask)"
        }
    }
}

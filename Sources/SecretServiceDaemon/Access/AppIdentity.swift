// SPDX-License-Identifier: Apache-2.0
// Who a client is: the application identity cofferd derives from the process behind a bus connection.

/// An application as cofferd tells applications apart. Derived from what the kernel says about the process (never
/// from anything the client sends), in this order of preference: a Flatpak app id, a Snap name, a systemd user
/// service, else the executable (with the script for interpreters). See docs/ACCESS-CONTROL.md.
public struct AppIdentity: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        case flatpak
        case snap
        case systemd
        /// An executable file: its path and the device and inode it had, so a replaced binary is a new identity.
        case executable = "exe"
        /// An interpreter running a script: weaker, since the script path is what the interpreter was told.
        case script
    }

    public let kind: Kind
    /// The app id, snap or unit name, or the executable as `PATH@DEV:INODE` (`INTERPRETER SCRIPT` for scripts).
    public let name: String
    /// `KIND:NAME`: the form recorded as an item's creator and in decisions, and shown to the user. Made once: every
    /// access check compares it.
    public let description: String

    public init(kind: Kind, name: String) {
        self.kind = kind
        self.name = name
        description = "\(kind.rawValue):\(name)"
    }

    /// What a prompt calls the application: the app id, snap or unit name, the executable's path, or the script's
    /// path with its interpreter; without device and inode numbers, which mean nothing to a person.
    public var displayName: String {
        func path(_ text: Substring) -> Substring { text.split(separator: "@").dropLast().joined(separator: "@")[...] }
        switch kind {
        case .flatpak, .snap, .systemd: return name
        case .executable: return String(name.contains("@") ? path(name[...]) : name[...])
        case .script:
            guard let space = name.firstIndex(of: " ") else { return name }
            let interpreter = path(name[..<space])
            let script = name[name.index(after: space)...]
            let shown = script.hasPrefix("/") ? path(script) : script
            return "\(shown) (run by \(interpreter))"
        }
    }

    /// Parses ``description``; `nil` for text that is not an identity.
    public init?(_ text: String) {
        guard let colon = text.firstIndex(of: ":"), let kind = Kind(rawValue: String(text[..<colon])) else { return nil }
        let name = String(text[text.index(after: colon)...])
        guard !name.isEmpty else { return nil }
        self.init(kind: kind, name: name)
    }
}

/// A client connection as resolved once: its identity and the process facts a prompt shows the user.
struct Caller: Sendable, Hashable {
    var identity: AppIdentity
    var processID: Int32
    /// The command line, as the process reports it (it may have rewritten it; shown, never trusted).
    var commandLine: String
}

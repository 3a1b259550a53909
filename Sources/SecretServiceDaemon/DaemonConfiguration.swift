// SPDX-License-Identifier: Apache-2.0
// Everything cofferd's command line can set.

/// How a daemon instance runs.
public struct DaemonConfiguration: Sendable {
    /// The bus to serve on; `nil` means the session bus (`DBUS_SESSION_BUS_ADDRESS`).
    public var busAddress: String?
    /// Take the name over from a provider that already owns it (and allows replacement).
    public var replace: Bool
    /// Answers prompts.
    public var prompter: any Prompter
    /// Per-client caps on sessions and prompts.
    public var clientLimits: ClientLimits

    public init(busAddress: String? = nil, replace: Bool = false, prompter: any Prompter = FixedPrompter.autoAccept,
                clientLimits: ClientLimits = .default) {
        self.busAddress = busAddress
        self.replace = replace
        self.prompter = prompter
        self.clientLimits = clientLimits
    }
}

/// Why the daemon could not start or stopped early.
public enum DaemonError: Error, CustomStringConvertible, Equatable {
    /// Another provider owns `org.freedesktop.secrets` and was not replaced.
    case nameTaken(owner: String?)
    /// No bus to connect to.
    case noBus(String)

    public var description: String {
        switch self {
        case .nameTaken(let owner):
            "org.freedesktop.secrets is already owned by \(owner ?? "another process"); stop that provider or run "
                + "with --replace"
        case .noBus(let detail): "cannot connect to the bus: \(detail)"
        }
    }
}

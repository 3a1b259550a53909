// SPDX-License-Identifier: Apache-2.0
// Everything cofferd's command line and configuration file can set.

public import SecretCrypto

/// How a daemon instance runs.
public struct DaemonConfiguration: Sendable {
    /// The bus to serve on; `nil` means the session bus (`DBUS_SESSION_BUS_ADDRESS`).
    public var busAddress: String?
    /// Take the name over from a provider that already owns it (and allows replacement).
    public var replace: Bool
    /// Let another provider take the name over from us (`--allow-replacement`). Off by default: any client may
    /// ask the bus for the name, and clients would then send their secrets to whoever took it.
    public var allowReplacement: Bool
    /// Answers prompts.
    public var prompter: any Prompter
    /// Per-client caps on sessions and prompts.
    public var clientLimits: ClientLimits
    /// Where collection files live; `nil` keeps every collection in memory.
    public var dataDirectory: String?
    /// The login password of `--unlock`: unlocks the `login` collection, creating it on first start.
    public var loginPassword: LoginPasswordInput?
    /// Where the login channel's socket goes (`$XDG_RUNTIME_DIR/coffer`); `nil` runs without it. The PAM module
    /// hands the login password over it (docs/PAM.md).
    public var loginChannelDirectory: String?
    /// Where systemd put the unit's credentials (`$CREDENTIALS_DIRECTORY`): `coffer-<collection>` there unlocks that
    /// collection at start through its systemd-credential key slot.
    public var credentialsDirectory: String?
    /// Argon2id cost for new passwords.
    public var keyDerivation: Argon2idParameters
    /// Which collections lock themselves after idle or unlocked time; off unless the configuration file says so.
    public var autoLock: AutoLockPolicy
    /// Which collections guard their items from applications that did not create them (`access-control`).
    public var accessPolicy: AccessPolicy
    /// The logind session whose screen lock locks collections (`XDG_SESSION_ID`); `nil` asks logind.
    public var loginSessionID: String?
    /// `sync-folder` by collection id (docs/SYNC.md).
    public var syncFolders: [String: String] = [:]

    public init(busAddress: String? = nil, replace: Bool = false, allowReplacement: Bool = false,
                prompter: any Prompter = FixedPrompter.autoAccept,
                clientLimits: ClientLimits = .default, dataDirectory: String? = nil,
                loginPassword: LoginPasswordInput? = nil,
                loginChannelDirectory: String? = nil, credentialsDirectory: String? = nil,
                keyDerivation: Argon2idParameters = .default, autoLock: AutoLockPolicy = .off,
                loginSessionID: String? = nil, accessPolicy: AccessPolicy = AccessPolicy()) {
        self.accessPolicy = accessPolicy
        self.busAddress = busAddress
        self.replace = replace
        self.allowReplacement = allowReplacement
        self.prompter = prompter
        self.clientLimits = clientLimits
        self.dataDirectory = dataDirectory
        self.loginPassword = loginPassword
        self.loginChannelDirectory = loginChannelDirectory
        self.credentialsDirectory = credentialsDirectory
        self.keyDerivation = keyDerivation
        self.autoLock = autoLock
        self.loginSessionID = loginSessionID
    }
}

/// Why the daemon could not start or stopped early.
public enum DaemonError: Error, CustomStringConvertible, Equatable {
    /// Another provider owns `org.freedesktop.secrets` and was not replaced; `replacing` tells whether `--replace`
    /// was asked for (and refused by that provider).
    case nameTaken(owner: String?, replacing: Bool)
    /// No bus to connect to.
    case noBus(String)
    /// Another process holds the data directory (the message names it and the holder's pid).
    case dataDirectoryInUse(String)
    /// The data directory cannot be created or opened (a read-only home, wrong owner or permissions); the message
    /// names the path and the system's reason.
    case dataDirectoryUnusable(String)

    public var description: String {
        switch self {
        case .nameTaken(let owner, false):
            "org.freedesktop.secrets is already owned by \(owner ?? "another process"); stop that provider, or run "
                + "with --replace if it allows replacement"
        case .nameTaken(let owner, true):
            // gnome-keyring and KeePassXC never allow replacement; the way over is to stop them and keep them from
            // starting again, which `coffer takeover` does (and imports their keyrings first).
            "org.freedesktop.secrets is owned by \(owner ?? "another process"), which does not allow replacement; "
                + "nothing was changed. Run `coffer takeover` to switch to cofferd (it imports that provider's "
                + "keyrings, stops it and keeps it from starting again)"
        case .noBus(let detail): "cannot connect to the bus: \(detail)"
        case .dataDirectoryInUse(let detail): detail
        case .dataDirectoryUnusable(let detail): "cannot use the data directory: \(detail)"
        }
    }
}

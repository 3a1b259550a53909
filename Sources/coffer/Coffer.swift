// SPDX-License-Identifier: Apache-2.0
// The coffer command-line tool's root command and the list of its subcommands.

import ArgumentParser

@main
struct Coffer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coffer",
        abstract: "Manage secrets kept by a Secret Service provider (cofferd, gnome-keyring, KeePassXC).",
        discussion: discussion,
        version: "0.1.0",
        groupedSubcommands: [
            CommandGroup(name: "security(1)-compatible", subcommands: securityCommands),
            CommandGroup(name: "secret-tool-compatible", subcommands: secretToolCommands),
            CommandGroup(name: "Diagnostic", subcommands: diagnosticCommands),
            CommandGroup(name: "Import and export", subcommands: transferCommands),
            CommandGroup(name: "cofferd", subcommands: [KeySlots.self, PromptAgent.self, Access.self, Sync.self]),
        ])

    /// macOS's security(1) verbs.
    static let securityCommands: [any ParsableCommand.Type] = [
        AddGenericPassword.self, FindGenericPassword.self, DeleteGenericPassword.self,
        AddInternetPassword.self, FindInternetPassword.self, DeleteInternetPassword.self,
        ListKeychains.self, DefaultKeychain.self, CreateKeychain.self, DeleteKeychain.self,
        LockKeychain.self, UnlockKeychain.self, SetKeychainPassword.self, DumpKeychain.self,
    ]

    /// Debian's secret-tool verbs.
    static let secretToolCommands: [any ParsableCommand.Type] = [
        Store.self, Lookup.self, Search.self, Clear.self, Lock.self,
    ]

    /// `status` and `doctor`.
    static let diagnosticCommands: [any ParsableCommand.Type] = [Status.self, Doctor.self]

    /// `import`, `export` and restoring archives: added here by the commands that move collections.
    static let transferCommands: [any ParsableCommand.Type] = [
        ImportKeyring.self, ExportCollection.self, RestoreArchive.self, Takeover.self,
    ]

    /// security(1) reads `-w` given as the last argument as "prompt for the password"; swift-argument-parser has
    /// no options with optional values, so that form is rewritten to a hidden flag before parsing.
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        if let verb = arguments.first, ["add-generic-password", "add-internet-password"].contains(verb),
           arguments.last == "-w" {
            arguments[arguments.count - 1] = "--prompt-for-password"
        }
        await main(arguments)
    }

    static let discussion = """
        Secrets are read from a prompt that does not echo when stdin is a terminal, otherwise from stdin; they are \
        never required on the command line. A secret given on the command line anyway (security's -w PASSWORD) \
        works but prints a warning, because other processes can read a command line.

        Every command prints human text by default and JSON with --json. A failure prints one line to stderr \
        and exits with a status that names its class (security(1)'s numbers where it has one):

        \(ExitStatus.helpTable)

        The provider is whoever owns org.freedesktop.secrets on the session bus named by \
        DBUS_SESSION_BUS_ADDRESS; `coffer status` shows it and `coffer doctor` checks the setup. When there is \
        no session bus, or no provider on it, every command says so in the same line and exits 53.
        """
}

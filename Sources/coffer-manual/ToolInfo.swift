// SPDX-License-Identifier: Apache-2.0
// The parts of swift-argument-parser's `--experimental-dump-help` JSON (ToolInfoV0) that a manual page shows.

/// The whole dump: one root command.
struct ToolInfo: Decodable {
    var command: CommandInfo
}

/// A command or subcommand.
struct CommandInfo: Decodable {
    var superCommands: [String]?
    var commandName: String
    var abstract: String?
    var discussion: String?
    var subcommands: [CommandInfo]?
    var arguments: [ArgumentInfo]?
    var shouldDisplay: Bool?

    /// swift-argument-parser adds a `help` subcommand of its own to every command with subcommands, and lists it
    /// even for commands without any (where it cannot be run); `--help` is documented instead.
    var displayedSubcommands: [CommandInfo] {
        (subcommands ?? []).filter { $0.commandName != "help" && $0.shouldDisplay != false }
    }

    var displayedArguments: [ArgumentInfo] {
        (arguments ?? []).filter { $0.shouldDisplay }
    }
}

/// One option, flag or positional argument.
struct ArgumentInfo: Decodable {
    enum Kind: String, Decodable {
        case positional, option, flag
    }

    struct Name: Decodable {
        enum Kind: String, Decodable {
            case long, short, longWithSingleDash
        }

        var kind: Kind
        var name: String

        /// As typed on the command line.
        var spelled: String {
            switch kind {
            case .long: "--" + name
            case .short: "-" + name
            case .longWithSingleDash: "-" + name
            }
        }
    }

    var kind: Kind
    var shouldDisplay: Bool
    var isOptional: Bool
    var isRepeating: Bool
    var names: [Name]?
    var valueName: String?
    var defaultValue: String?
    var allValues: [String]?
    var abstract: String?
    var discussion: String?

    /// The default worth showing: flags default to off, which says nothing, and an empty default is no default.
    var shownDefault: String? {
        guard kind != .flag, let defaultValue, !defaultValue.isEmpty else { return nil }
        return defaultValue
    }
}

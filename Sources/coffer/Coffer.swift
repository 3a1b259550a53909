// SPDX-License-Identifier: Apache-2.0
// The coffer command-line tool's root command.

import ArgumentParser

@main
struct Coffer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coffer",
        abstract: "Manage secrets kept by a Secret Service provider (cofferd, gnome-keyring, KeePassXC).",
        version: "0.1.0",
        subcommands: [])
}

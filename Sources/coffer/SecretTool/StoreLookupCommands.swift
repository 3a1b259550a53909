// SPDX-License-Identifier: Apache-2.0
// secret-tool's store and lookup.

import ArgumentParser
import DBusWire
import Foundation
import SecretCrypto
import SecretServiceClient

struct Store: CofferCommand {
    static let configuration = CommandConfiguration(
        abstract: "Store a secret (secret-tool compatible); replaces an item with the same attributes.",
        discussion: "The secret is read at a prompt that does not echo, or from stdin (all of it, byte for byte) "
            + "when stdin is not a terminal.")

    @Option(help: "The item's label.")
    var label: String?
    @Option(help: "The collection: alias (default, login, session), label, id or object path. Default: the default collection.")
    var collection: String?
    @OptionGroup var output: OutputOptions
    @OptionGroup var pairs: AttributePairs

    func execute() async throws {
        guard let label else { throw CofferError.badArguments("must specify a label for the new item") }
        let attributes = try pairs.attributes()
        try await ProviderConnection.with { service in
            let target = if let collection { try await service.resolveCollection(collection) } else {
                try await service.defaultCollection()
            }
            let secret = try SecretInput.read(prompt: "Password: ", piped: .whole)
            let item = try await service.createItem(
                in: target, label: label, attributes: attributes, secret: secret, replace: true)
            if output.json { try JSONOutput.print(["path": item.rawValue]) }
        }
    }
}

struct Lookup: CofferCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the secret of the first matching item (secret-tool compatible).",
        discussion: "The secret is written as stored, without a trailing newline unless stdout is a terminal. "
            + "Locked matches are unlocked (which may prompt). No match: exit status 44.")

    @OptionGroup var output: OutputOptions
    @OptionGroup var pairs: AttributePairs

    func execute() async throws {
        let attributes = try pairs.attributes()
        try await ProviderConnection.with { service in
            guard let item = try await service.findItems(attributes, unlock: true, all: false, secrets: true).first,
                  let secret = item.secret
            else { throw CofferError.notFound("no matching item") }
            if output.json {
                try JSONOutput.print(item.json(includeSecret: true))
                return
            }
            secret.value.withUnsafeBytes { Console.write(bytes: $0) }
            if Console.isTerminal(STDOUT_FILENO) { Console.write("\n") }
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// security(1)'s dump-keychain: every item's attributes, and the secrets only with the user's explicit consent.

import ArgumentParser
import DBusWire
import Foundation
import SecretCrypto
import SecretServiceClient

struct DumpKeychain: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump-keychain", abstract: "Print every item of the keychains (default: all).",
        discussion: "-d prints the secrets too. Because that puts every secret on the screen or into a file, it "
            + "needs consent: typing 'yes' at the question on the terminal, or --yes-print-secrets for scripts. "
            + "Locked collections are skipped unless -u is given (a line on stderr names each one skipped); with -u "
            + "they are unlocked first, which may prompt.")

    @Flag(name: .customShort("d"), help: "Print the secrets too (asks for consent).")
    var withSecrets = false
    @Flag(name: .customLong("yes-print-secrets"), help: "Consent to -d without the question (for scripts).")
    var consent = false
    @Flag(name: .customShort("u"), help: "Unlock locked collections first (may prompt).")
    var unlock = false
    @OptionGroup var output: OutputOptions
    @Argument(help: ArgumentHelp("Collections: alias, label, id or object path.", valueName: "keychain"))
    var keychains: [String] = []

    func execute() async throws {
        if withSecrets { try askConsent() }
        try await ProviderConnection.with { service in
            var targets: [ObjectPath] = []
            for name in keychains { targets.append(try await service.resolveCollection(name)) }
            if targets.isEmpty { targets = try await service.collections() }
            if unlock { try await service.unlock(targets) }
            var dumped: [FoundItem] = []
            for collection in targets {
                let properties = try await service.collectionProperties(collection)
                // A locked collection's items show nothing but their paths (cofferd seals labels and attributes):
                // printing them would list empty entries, so the collection is named on stderr instead.
                guard !properties.locked else {
                    Console.error("skipped locked keychain '\(properties.label)' (\(collection.rawValue)); "
                        + "-u unlocks it first")
                    continue
                }
                let secrets = withSecrets ? try await service.secrets(of: properties.items) : [:]
                for item in properties.items {
                    let found = FoundItem(path: item, properties: try await service.itemProperties(item),
                                          secret: secrets[item])
                    if !output.json { print(found, keychain: collection) }
                    dumped.append(found)
                }
            }
            if output.json { try JSONOutput.print(dumped.map { $0.json(includeSecret: withSecrets) }) }
        }
    }

    private func askConsent() throws {
        if consent { return }
        guard Console.isTerminal(STDIN_FILENO) else {
            throw CofferError.badArguments("-d prints every secret in clear text: add --yes-print-secrets to consent")
        }
        Console.write("dump-keychain -d prints every secret in clear text. Type 'yes' to go on: ", to: STDERR_FILENO)
        guard readLine(strippingNewline: true) == "yes" else { throw CofferError(.cancelled, "not confirmed") }
    }

    /// security's layout: keychain, class, attributes, and `data:` when secrets are shown.
    private func print(_ item: FoundItem, keychain: ObjectPath) {
        var attributes = item.properties.attributes
        Console.print("keychain: \"\(keychain.rawValue)\"")
        Console.print("class: \"\(attributes.removeValue(forKey: "keychain:class") ?? "secret")\"")
        Console.print("label: \"\(item.properties.label)\"")
        Console.print("attributes:")
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) { Console.print("    \"\(name)\"=\"\(value)\"") }
        if withSecrets {
            Console.print("data:")
            if let secret = item.secret {
                secret.value.withUnsafeBytes { Console.write(bytes: $0) }
                Console.write("\n")
            } else {
                Console.print("<locked>")
            }
        }
    }
}

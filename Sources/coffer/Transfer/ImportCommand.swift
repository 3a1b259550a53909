// SPDX-License-Identifier: Apache-2.0
// `coffer import FILE`: gnome-keyring and libsecret keyring files (and coffer archives) into a collection.

import ArgumentParser
import DBusWire
import Foundation
import KeyringFiles
import SecretCrypto

struct ImportKeyring: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a gnome-keyring or libsecret keyring file into a collection.",
        discussion: """
            The format is recognised from the content: gnome-keyring's binary keyrings \
            (~/.local/share/keyrings/*.keyring) and its plaintext keyrings (written for an empty password), \
            libsecret/oo7 file keyrings (format 1), and `coffer export` archives. The keyring's password is read \
            from a prompt that does not echo, or from the first line of stdin when stdin is not a terminal.

            When the --collection named does not exist it is created with that label and a password of its own, \
            asked like create-keychain asks it: twice at a prompt, or as the next line of stdin (the second line \
            after the keyring's password; the first for a plaintext keyring, which has none).

            A damaged `coffer export` archive exits 65; a wrong password or passphrase exits 51.

            Importing is idempotent: an item whose attributes, label and secret all match an item already in the \
            collection is counted as already present and not written again. An item that differs is added as a \
            new item; nothing in the collection is overwritten or removed. Items the file holds no secret for are \
            skipped and named on stderr. --json prints file, format, collection, imported, alreadyPresent, skipped \
            and skippedItems (label and reason of each).
            """)

    @Argument(help: "The keyring file.")
    var file: String

    @OptionGroup var destination: TransferDestination

    func execute() async throws {
        let bytes = try TransferSupport.readFile(file)
        guard let format = KeyringFile.detectFormat(bytes) else {
            throw TransferSupport.failure(.unrecognizedFormat, file: file)
        }
        var secrets = SecretSequence()
        let password = KeyringFile.needsPassword(format)
            ? try secrets.read(prompt: "Password for \(file): ", purpose: "the password of \(file)") : nil
        let keyring: ImportedKeyring
        do {
            keyring = try KeyringFile.parse(bytes, password: password)
        } catch let error as KeyringFileError {
            throw TransferSupport.failure(error, file: file)
        }
        try await TransferRun.importItems(keyring, file: file, collection: destination.collection,
                                          json: destination.output.json, secrets: &secrets)
    }
}

/// Where import and restore put items, and how they report.
struct TransferDestination: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The collection to put the items in (alias, label or id); created if missing, with a new password.",
        discussion: "import uses the default collection without it; restore the collection named in the archive."))
    var collection: String?

    @OptionGroup var output: OutputOptions
}

/// The part import and restore share: connect, pick the collection, import with a progress bar, report.
enum TransferRun {
    /// - Parameter secrets: where the password for a collection that must be created comes from.
    static func importItems(_ keyring: ImportedKeyring, file: String, collection: String?, json: Bool,
                            secrets: inout SecretSequence) async throws {
        let report = try await ProviderConnection.with { client in
            let target = try await TransferSupport.targetCollection(collection, client: client, secrets: &secrets)
            var report = ImportReport(file: file, format: keyring.format.rawValue, collection: target.rawValue)
            var bar = ProgressBar(label: "importing", total: keyring.items.count,
                                  enabled: keyring.items.count >= 20 && Console.isTerminal(STDERR_FILENO))
            try await KeyringImporter(client: client, collection: target).run(keyring.items, into: &report) {
                bar.update(completed: $0)
            }
            bar.finish()
            return report
        }
        for skipped in report.skipped where !json {
            Console.warning("skipped '\(skipped.label)': \(skipped.reason)")
        }
        if json {
            try JSONOutput.print(report)
        } else {
            Console.print(report.summary)
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// `coffer restore ARCHIVE`: puts an exported collection back, without duplicating what is already there.

import ArgumentParser
import KeyringFiles
import SecretCrypto

struct RestoreArchive: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Restore a collection from a `coffer export` archive.",
        discussion: """
            The items go into the collection named with --collection, or else the collection with the archive's \
            label. The passphrase is read from a prompt that does not echo, or from the first line of stdin. A \
            missing collection is created with a password of its own, asked like create-keychain asks it: twice \
            at a prompt, or as the second line of stdin. Restoring is idempotent, exactly like `coffer import`.

            A damaged archive (cut short, or with changed bytes) exits 65 and names the damage; a wrong passphrase \
            exits 51. Archives written before format version 2 cannot tell the two apart and report 51 for both.
            """)

    @Argument(help: "The archive file.")
    var archive: String

    @OptionGroup var destination: TransferDestination

    func execute() async throws {
        let bytes = try TransferSupport.readFile(archive)
        guard CofferArchive.matches(bytes) else {
            throw CofferError(.badData, "\(archive) is not a coffer archive (use `coffer import` for keyring files)")
        }
        var secrets = SecretSequence()
        let passphrase = try secrets.read(prompt: "Archive passphrase: ", purpose: "the archive passphrase")
        let keyring: ImportedKeyring
        do {
            keyring = try CofferArchive.parse(bytes, passphrase: passphrase)
        } catch let error as KeyringFileError {
            throw TransferSupport.failure(error, file: archive)
        }
        let target = destination.collection ?? keyring.label.flatMap { $0.isEmpty ? nil : $0 }
        try await TransferRun.importItems(keyring, file: archive, collection: target, json: destination.output.json,
                                          secrets: &secrets)
    }
}

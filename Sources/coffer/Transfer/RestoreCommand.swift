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
            label (created if missing). The passphrase is read from a prompt that does not echo, or from the first \
            line of stdin. Restoring is idempotent, exactly like `coffer import`.
            """)

    @Argument(help: "The archive file.")
    var archive: String

    @OptionGroup var destination: TransferDestination

    func execute() async throws {
        let bytes = try TransferSupport.readFile(archive)
        guard CofferArchive.matches(bytes) else {
            throw CofferError(.badData, "\(archive) is not a coffer archive (use `coffer import` for keyring files)")
        }
        let passphrase = try SecretInput.read(prompt: "Archive passphrase: ", piped: .firstLine)
        let keyring: ImportedKeyring
        do {
            keyring = try CofferArchive.parse(bytes, passphrase: passphrase)
        } catch let error as KeyringFileError {
            throw TransferSupport.failure(error, file: archive)
        }
        let target = destination.collection ?? keyring.label.flatMap { $0.isEmpty ? nil : $0 }
        try await TransferRun.importItems(keyring, file: archive, collection: target, json: destination.output.json)
    }
}

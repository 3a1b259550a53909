// SPDX-License-Identifier: Apache-2.0
// `coffer export`: one collection into a passphrase-encrypted archive (Argon2id + AES-256-GCM).

import ArgumentParser
import DBusWire
import Foundation
import KeyringFiles
import SecretCrypto
import SecretServiceClient

/// What `coffer export --json` prints.
struct ExportReport: Encodable {
    var file: String
    var collection: String
    var exported: Int
}

struct ExportCollection: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a collection into an encrypted archive file.",
        discussion: """
            Every item of the collection (label, attributes, secret, content type, times) is sealed with \
            AES-256-GCM under a key derived from a passphrase with Argon2id; the format is described in \
            ARCHIVE.md in Coffer's documentation directory (/usr/share/doc/coffer, or /usr/local/share/doc/coffer \
            after `make install`). The passphrase is read twice from a prompt that does not echo, or \
            from the first line of stdin when stdin is not a terminal. `coffer restore` reads the archive back. \
            A checksum at the end lets it tell a damaged archive (exit 65) from a wrong passphrase (exit 51).
            """)

    @Option(name: .long, help: "The collection to export (alias, label or id). Default: the default collection.")
    var collection: String?

    @Option(name: [.short, .long], help: "The archive file to write (created with mode 0600; must not exist).")
    var output: String

    @OptionGroup var outputOptions: OutputOptions

    func execute() async throws {
        guard !FileManager.default.fileExists(atPath: output) else {
            throw CofferError(.badArguments, "\(output) already exists; choose a new file name")
        }
        let passphrase = try SecretInput.readNewPassword(prompt: "Archive passphrase: ",
                                                         confirmation: "Repeat the passphrase: ")
        guard !passphrase.isEmpty else { throw CofferError(.badArguments, "the archive passphrase is empty") }
        let keyring = try await ProviderConnection.with { client in
            let path: ObjectPath
            if let collection {
                path = try await client.resolveCollection(collection)
            } else if let existing = try await client.defaultCollectionPath() {
                path = existing
            } else {
                throw CofferError.noSuchKeychain("default")
            }
            return try await Self.read(path, client: client)
        }
        try Self.writeNew(output, try CofferArchive.write(keyring, passphrase: passphrase))
        if outputOptions.json {
            try JSONOutput.print(ExportReport(file: output, collection: keyring.label ?? "", exported: keyring.items.count))
        } else {
            Console.print("exported \(keyring.items.count) item\(keyring.items.count == 1 ? "" : "s") to \(output)")
        }
    }

    /// Creates `path` with mode 0600 and writes `bytes`; `O_EXCL` makes "must not exist" atomic.
    static func writeNew(_ path: String, _ bytes: [UInt8]) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CofferError(.ioError, "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let reason = String(cString: strerror(errno))
                unlink(path)  // a partial archive is useless and would block the next attempt
                throw CofferError(.ioError, "cannot write \(path): \(reason)")
            }
            written += count
        }
        guard fsync(descriptor) == 0 else { throw CofferError(.ioError, "cannot flush \(path) to disk") }
    }

    /// Every item of the collection with its secret (the collection is unlocked first if needed).
    static func read(_ path: ObjectPath, client: SecretService) async throws -> ImportedKeyring {
        var properties = try await client.collectionProperties(path)
        if properties.locked {
            try await client.unlock([path])
            properties = try await client.collectionProperties(path)
        }
        let secrets = try await client.secrets(of: properties.items)
        var items: [ImportedItem] = []
        for item in properties.items {
            guard let secret = secrets[item] else {
                throw CofferError(.locked, "the provider returned no secret for \(item.rawValue)")
            }
            let itemProperties = try await client.itemProperties(item)
            items.append(ImportedItem(label: itemProperties.label, attributes: itemProperties.attributes,
                                      secret: secret.value, contentType: secret.contentType,
                                      created: itemProperties.created, modified: itemProperties.modified))
        }
        return ImportedKeyring(format: .cofferArchive, label: properties.label, items: items)
    }
}

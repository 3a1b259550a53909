// SPDX-License-Identifier: Apache-2.0
// `coffer sync enable [--collection NAME] FOLDER`: make a cofferd collection synchronized through a folder.

import ArgumentParser
import DBusWire
import Foundation
import SecretCrypto
import SecretServiceClient
import SecretServiceProtocol

struct SyncEnable: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "enable",
        abstract: "Synchronize a collection through a folder that a sync engine carries.",
        discussion: """
            Asks the collection's password (the first line of stdin when it is not a terminal). cofferd makes the \
            collection's directory in the folder, leaves there the collection's key wrapped with the password (so \
            another machine can join with it), and writes every item to this machine's journal. From then on every \
            change of the collection's items is in the journal before it is acknowledged. See docs/SYNC.md.
            """)

    @Argument(help: ArgumentHelp("The folder the sync engine keeps in step (an existing directory).",
                                 valueName: "folder"))
    var folder: String

    @Option(help: ArgumentHelp("The collection: alias, label, id or object path (default: the default collection).",
                               valueName: "name"))
    var collection: String?

    @OptionGroup var output: OutputOptions

    func execute() async throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CofferError(.noInput, "no folder at \(folder)")
        }
        // cofferd resolves the path itself, and may run in another working directory.
        let absolute = URL(fileURLWithPath: folder).standardizedFileURL.path
        try await ProviderConnection.with { service in
            let path: ObjectPath
            if let collection {
                path = try await service.resolveCollection(collection)
            } else if let found = try await service.defaultCollectionPath() {
                path = found
            } else {
                throw CofferError(.noSuchKeychain, "no default collection; choose one with --collection")
            }
            let password = try SecretInput.read(prompt: "Password of the collection: ", piped: .firstLine)
            let enabled: (collection: String, device: String)
            do {
                enabled = try await service.enableSync(of: path, password: password, folder: absolute)
            } catch SecretServiceError.denied {
                throw CofferError(.authenticationFailed, "the password does not open this collection")
            }
            if output.json {
                return try JSONOutput.print(["folder": absolute, "collection": enabled.collection,
                                             "device": enabled.device])
            }
            Console.print("synchronized through \(absolute)")
            Console.print("collection \(enabled.collection)")
            Console.print("device     \(enabled.device)")
        }
    }
}

extension SecretService {
    /// `io.coffer.Sync.Enable(o collection, (oayays) password, s folder) → (s sync_collection, s device)`.
    func enableSync(of collection: ObjectPath, password: SecretBytes, folder: String) async throws
        -> (collection: String, device: String) {
        let body = try await callServiceObject(SecretServiceNames.syncInterface, "Enable", [
            .objectPath(collection), try session.encode(password, contentType: "text/plain").dbusValue,
            .string(folder),
        ])
        guard body.count == 2, let id = body[0].string, let device = body[1].string else {
            throw SecretServiceClientError.unexpectedReply("Enable returned an unexpected reply")
        }
        return (id, device)
    }
}

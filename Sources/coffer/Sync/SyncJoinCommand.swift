// SPDX-License-Identifier: Apache-2.0
// `coffer sync join FOLDER`: make a local collection of a synchronized collection made on another machine.

import ArgumentParser
import DBusWire
import Foundation
import SecretCrypto
import SecretServiceClient
import SecretServiceProtocol

struct SyncJoin: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Join a synchronized collection made on another machine.",
        discussion: """
            Asks the collection's password once (the first line of stdin when it is not a terminal). cofferd \
            opens the collection's key with it from the folder, makes a local collection with the same password, \
            and merges every machine's journal into it. From then on it is unlocked like any local collection. \
            See docs/SYNC.md.
            """)

    @Argument(help: ArgumentHelp("The folder the sync engine keeps in step.", valueName: "folder"))
    var folder: String

    @Option(help: ArgumentHelp("The synchronized collection's id, when the folder holds several.", valueName: "id"))
    var collection: String?

    @Option(help: ArgumentHelp("The local collection's name.", valueName: "label"))
    var label = "Synchronized"

    @OptionGroup var output: OutputOptions

    func execute() async throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CofferError(.noInput, "no folder at \(folder)")
        }
        let absolute = URL(fileURLWithPath: folder).standardizedFileURL.path
        try await ProviderConnection.with { service in
            let password = try SecretInput.read(prompt: "Password of the collection: ", piped: .firstLine)
            let joined: (path: ObjectPath, collection: String, device: String)
            do {
                joined = try await service.joinSync(folder: absolute, collection: collection ?? "", password: password,
                                                    label: label)
            } catch SecretServiceError.denied {
                throw CofferError(.authenticationFailed, "the password opens no wrap of this synchronized collection")
            }
            let id = String(joined.path.rawValue.split(separator: "/").last ?? "")
            if output.json {
                return try JSONOutput.print(["keychain": id, "folder": absolute, "collection": joined.collection,
                                             "device": joined.device])
            }
            Console.print("joined as keychain \(id)")
            Console.print("collection \(joined.collection)")
            Console.print("device     \(joined.device)")
        }
    }
}

extension SecretService {
    /// `io.coffer.Sync.Join(s folder, s sync_collection, (oayays) password, s label)
    /// → (o collection, s sync_collection, s device)`.
    func joinSync(folder: String, collection: String, password: SecretBytes, label: String) async throws
        -> (path: ObjectPath, collection: String, device: String) {
        let body = try await callServiceObject(SecretServiceNames.syncInterface, "Join", [
            .string(folder), .string(collection), try session.encode(password, contentType: "text/plain").dbusValue,
            .string(label),
        ])
        guard body.count == 3, let path = body[0].objectPath, let id = body[1].string, let device = body[2].string else {
            throw SecretServiceClientError.unexpectedReply("Join returned an unexpected reply")
        }
        return (path, id, device)
    }
}

extension SecretService {
    /// `io.coffer.Sync.SetAside(s sync_collection) → (s collection, a{ss} journals)`, or `nil` when cofferd holds
    /// no unlocked collection synchronized as `collection`.
    func syncSetAside(_ collection: String) async throws -> (keychain: String, journals: [String: String])? {
        let body: [DBusValue]
        do {
            body = try await callServiceObject(SecretServiceNames.syncInterface, "SetAside", [.string(collection)])
        } catch SecretServiceError.noSuchObject {
            return nil
        }
        guard body.count == 2, let keychain = body[0].string, case .dictionary(_, _, let entries) = body[1] else {
            throw SecretServiceClientError.unexpectedReply("SetAside returned an unexpected reply")
        }
        var journals: [String: String] = [:]
        for entry in entries {
            if let device = entry.key.string, let reason = entry.value.string { journals[device] = reason }
        }
        return (keychain, journals)
    }
}

// SPDX-License-Identifier: Apache-2.0
// `coffer sync leave [--collection NAME]`: stop synchronizing a collection on this machine; its items stay.

import ArgumentParser
import DBusWire
import SecretServiceClient
import SecretServiceProtocol

struct SyncLeave: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "leave",
        abstract: "Stop synchronizing a collection on this machine; its items stay here.",
        discussion: """
            The collection becomes a local collection with the items it holds now; cofferd forgets its sync \
            state. Nothing in the folder changes: the other machines keep what this one wrote, and this machine's \
            later changes no longer reach them. To synchronize again, `coffer sync join FOLDER` makes a new local \
            collection with a new device id. See docs/SYNC.md.
            """)

    @Option(help: ArgumentHelp("The collection: alias, label, id or object path (default: the default collection).",
                               valueName: "name"))
    var collection: String?

    @OptionGroup var output: OutputOptions

    func execute() async throws {
        try await ProviderConnection.with { service in
            let path = try await service.collectionOrDefault(collection)
            let left: (collection: String, device: String, folder: String)
            do {
                left = try await service.leaveSync(of: path)
            } catch SecretServiceError.invalidArgs(let reason) {
                throw CofferError.badArguments(reason)
            }
            if output.json {
                return try JSONOutput.print(["folder": left.folder, "collection": left.collection,
                                             "device": left.device])
            }
            Console.print("no longer synchronized through \(left.folder)")
            Console.print("collection \(left.collection)")
            Console.print("device     \(left.device) (its journal stays in the folder)")
        }
    }
}

extension SecretService {
    /// `io.coffer.Sync.Leave(o collection) → (s sync_collection, s device, s folder)`.
    func leaveSync(of collection: ObjectPath) async throws -> (collection: String, device: String, folder: String) {
        let body = try await callServiceObject(SecretServiceNames.syncInterface, "Leave", [.objectPath(collection)])
        guard body.count == 3, let id = body[0].string, let device = body[1].string, let folder = body[2].string else {
            throw SecretServiceClientError.unexpectedReply("Leave returned an unexpected reply")
        }
        return (id, device, folder)
    }
}

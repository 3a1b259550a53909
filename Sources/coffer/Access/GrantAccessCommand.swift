// SPDX-License-Identifier: Apache-2.0
// `coffer access grant`: "always allow" given ahead of time, for items or a whole collection, once the user confirms.

import ArgumentParser
import DBusWire
import SecretServiceClient
import SecretServiceProtocol

struct GrantAccess: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "grant",
        abstract: "Always allow an application to use some items, or a whole collection, ahead of time.",
        discussion: """
            The application is named by its identity as `coffer access list` and `coffer access log` show it \
            (KIND:NAME, such as exe:/usr/bin/secret-tool@DEV:INODE or flatpak:org.example.App). With item object \
            paths, it may use those items; with --collection and no items, every item of the collection, present \
            and future. cofferd asks you to confirm in a prompt that names the program asking (this command), so \
            nothing is granted that you did not confirm; a locked collection is unlocked first.
            """)

    @Argument(help: ArgumentHelp("The application, as `coffer access list` shows it.", valueName: "application"))
    var application: String
    @Argument(help: ArgumentHelp("Item object paths (default: the whole collection named by --collection).",
                                 valueName: "item"))
    var items: [String] = []
    @Option(help: ArgumentHelp("The collection: alias, label, id or object path (needed without items).",
                               valueName: "collection"))
    var collection: String?
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard !items.isEmpty || collection != nil else {
            throw ValidationError("name the items, or the whole collection with --collection")
        }
    }

    func execute() async throws {
        var byCollection: [(collection: String, items: [ObjectPath])] = []
        for item in items {
            guard let path = ObjectPath(item), case .item(let owner, _)? = SecretObjectPath(path) else {
                throw CofferError.badArguments("'\(item)' is not an item object path")
            }
            if let index = byCollection.firstIndex(where: { $0.collection == owner }) {
                byCollection[index].items.append(path)
            } else {
                byCollection.append((owner, [path]))
            }
        }
        try await ProviderConnection.with { service in
            var targets: [(path: ObjectPath, items: [ObjectPath])] = []
            if let collection {
                let path = try await service.resolveCollection(collection)
                let id = CollectionReference(path: path).id
                guard byCollection.allSatisfy({ $0.collection == id }) else {
                    throw CofferError.badArguments("the items are not all in the collection '\(collection)'")
                }
                targets = [(path, byCollection.first?.items ?? [])]
            } else {
                targets = byCollection.map { (SecretObjectPath.collection($0.collection).objectPath, $0.items) }
            }
            var granted: [ObjectPath] = []
            for (path, items) in targets {
                // Decisions are sealed in the collection: it must be open to take one.
                try await service.unlock([path])
                granted += try await service.grantAccess(to: application, in: path, items: items)
            }
            if output.json { return try JSONOutput.print(["granted": granted.map(\.rawValue)]) }
            Console.print("always allowing \(application) for " + AccessScope.describe(granted))
        }
    }
}

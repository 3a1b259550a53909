// SPDX-License-Identifier: Apache-2.0
// `coffer access`: which application created each item and which others may use it; taking access back.

import ArgumentParser
import DBusWire
import SecretServiceClient
import SecretServiceProtocol

struct Access: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "access",
        abstract: "Show and take back which applications may use which items of cofferd (docs/ACCESS-CONTROL.md).",
        discussion: """
            Each item belongs to the application that stored it; another one is asked about when it wants the \
            item, and "Always allow" is remembered in the collection. Access is granted only by answering that \
            prompt: a command that granted it could be run by any program to grant itself.
            """,
        subcommands: [ListAccess.self, RevokeAccess.self])
}

/// Which collections a verb looks at.
struct AccessScope: ParsableArguments {
    @Option(help: ArgumentHelp("Only this collection: alias, label, id or object path (default: every unlocked one).",
                               valueName: "collection"))
    var collection: String?

    /// The named collection, or every collection; locked ones are skipped when none is named (their creators are
    /// sealed).
    func collections(_ service: SecretService) async throws -> (paths: [ObjectPath], named: Bool) {
        if let collection { return ([try await service.resolveCollection(collection)], true) }
        return (try await service.collections(), false)
    }
}

struct ListAccess: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List each item's creator and the applications always allowed to use it.")

    @OptionGroup var scope: AccessScope
    @OptionGroup var output: OutputOptions

    func execute() async throws {
        try await ProviderConnection.with { service in
            var entries: [AccessEntry] = []
            let (paths, named) = try await scope.collections(service)
            for path in paths {
                do {
                    entries += try await service.access(of: path)
                } catch SecretServiceError.isLocked where !named {
                    continue
                }
            }
            if output.json { return try JSONOutput.print(entries) }
            for entry in entries {
                let creator = entry.creator.isEmpty ? "(no creator)" : entry.creator
                let allowed = entry.allowed.isEmpty ? "" : "\tallowed: " + entry.allowed.joined(separator: ", ")
                Console.print("\(entry.item)\t\(creator)\(allowed)")
            }
        }
    }
}

struct RevokeAccess: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke", abstract: "Take \"always allow\" back from an application, for some items or all.")

    @Argument(help: ArgumentHelp("The application, as `coffer access list` shows it.", valueName: "application"))
    var application: String
    @Argument(help: ArgumentHelp("Item object paths (default: every item).", valueName: "item"))
    var items: [String] = []
    @OptionGroup var scope: AccessScope
    @OptionGroup var output: OutputOptions

    func execute() async throws {
        var paths: [ObjectPath] = []
        for item in items {
            guard let path = ObjectPath(item), case .item? = SecretObjectPath(path) else {
                throw CofferError.badArguments("'\(item)' is not an item object path")
            }
            paths.append(path)
        }
        try await ProviderConnection.with { service in
            var revoked: [ObjectPath] = []
            let (collections, named) = try await scope.collections(service)
            for collection in collections {
                let id = CollectionReference(path: collection).id
                let mine = paths.filter {
                    if case .item(let owner, _)? = SecretObjectPath($0) { return owner == id } else { return false }
                }
                guard paths.isEmpty || !mine.isEmpty else { continue }
                do {
                    revoked += try await service.revokeAccess(of: application, in: collection, items: mine)
                } catch SecretServiceError.isLocked where !named {
                    continue
                }
            }
            if output.json { return try JSONOutput.print(["revoked": revoked.map(\.rawValue)]) }
            Console.print(revoked.isEmpty ? "\(application) had no access to take back"
                : "took access back from \(application) for \(revoked.count) item(s)")
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// `coffer access`: which application created each item and which others may use it; taking access back. Granting
// and the log have files of their own.

import ArgumentParser
import DBusWire
import SecretServiceClient
import SecretServiceProtocol

struct Access: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "access",
        abstract: "Show, grant and take back which applications may use which items of cofferd; read the access log.",
        discussion: """
            Each item belongs to the application that stored it; another one is asked about when it wants the \
            item, and "Always allow" is remembered in the collection. Applications are named by their identity \
            (KIND:NAME, such as exe:/usr/bin/secret-tool@DEV:INODE), as `coffer access list` and `coffer access \
            log` show it. `grant` gives "Always allow" ahead of time, for items or a whole collection, once you \
            confirm it in a prompt that names the program asking (any program could run `coffer access grant`). \
            ACCESS-CONTROL.md in Coffer's documentation directory explains what users see and the threat model.
            """,
        subcommands: [ListAccess.self, GrantAccess.self, RevokeAccess.self, AccessLogCommand.self])
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

    /// "2 item(s)", "the whole collection login", or both, for what a grant or revoke touched.
    static func describe(_ paths: [ObjectPath]) -> String {
        var parts: [String] = []
        for path in paths {
            if case .collection(let id)? = SecretObjectPath(path) { parts.append("the whole collection \(id)") }
        }
        let items = paths.count { if case .item? = SecretObjectPath($0) { true } else { false } }
        if items > 0 { parts.append("\(items) item(s)") }
        return parts.joined(separator: " and ")
    }
}

struct ListAccess: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List each item's creator and the applications always allowed to use it.",
        discussion: """
            Applications allowed a whole collection come first, as an entry without an item (`"item": ""` with \
            --json).
            """)

    @OptionGroup var scope: AccessScope
    @OptionGroup var output: OutputOptions

    func execute() async throws {
        try await ProviderConnection.with { service in
            var entries: [AccessEntry] = []
            let (paths, named) = try await scope.collections(service)
            for path in paths {
                do {
                    // The collection as a whole first, as an entry with no item.
                    let whole = try await service.collectionAccess(of: path)
                    let id = CollectionReference(path: path).id
                    if !whole.isEmpty {
                        entries.append(AccessEntry(collection: id, item: "", creator: "", allowed: whole))
                    }
                    for (group, allowed) in try await service.groupAccess(of: path).sorted(by: { $0.key < $1.key }) {
                        entries.append(AccessEntry(collection: id, item: "", creator: "", allowed: allowed,
                                                   group: group))
                    }
                    entries += try await service.access(of: path)
                } catch SecretServiceError.isLocked where !named {
                    continue
                }
            }
            if output.json { return try JSONOutput.print(entries) }
            for entry in entries where entry.item.isEmpty {
                let scope = entry.group.map { "(access group \($0))" } ?? "(every item)"
                Console.print("collection \(entry.collection) \(scope)\tallowed: " + entry.allowed.joined(separator: ", "))
            }
            for entry in entries where !entry.item.isEmpty {
                let creator = entry.creator.isEmpty ? "(no creator)" : entry.creator
                let allowed = entry.allowed.isEmpty ? "" : "\tallowed: " + entry.allowed.joined(separator: ", ")
                Console.print("\(entry.item)\t\(creator)\(allowed)")
            }
        }
    }
}

struct RevokeAccess: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke", abstract: "Take \"always allow\" back from an application, for some items or all.",
        discussion: """
            Without items, the application loses "always allow" for every item and for the collection as a whole \
            (of the named collection, or of every unlocked one).
            """)

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
                : "took access back from \(application) for " + AccessScope.describe(revoked))
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// secret-tool's search, clear and lock.

import ArgumentParser
import DBusWire
import Foundation
import SecretCrypto
import SecretServiceClient

struct Search: CofferCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show matching items with their secrets and attributes (secret-tool compatible).",
        discussion: "Without --all only the first match is shown; without --unlock locked items are shown "
            + "without their secret, and with empty created and modified dates when the provider keeps those "
            + "sealed while locked (cofferd does; --json then leaves the two fields out). Dates are UTC, as "
            + "secret-tool prints them. No match prints nothing and exits 0, as secret-tool does.")

    @Flag(help: "Show every match.")
    var all = false
    @Flag(help: "Unlock locked matches (may prompt).")
    var unlock = false
    @OptionGroup var output: OutputOptions
    @OptionGroup var pairs: AttributePairs

    func execute() async throws {
        let attributes = try pairs.attributes()
        try await ProviderConnection.with { service in
            let items = try await service.findItems(attributes, unlock: unlock, all: all, secrets: true)
            if output.json {
                try JSONOutput.print(items.map { $0.json(includeSecret: true) })
                return
            }
            for item in items { print(item) }
        }
    }

    /// secret-tool's block: `[/<id>]`, label, secret, dates, schema, then `attribute.<name> = <value>` lines.
    private func print(_ item: FoundItem) {
        Console.print("[/\(item.path.rawValue.split(separator: "/").last ?? "")]")
        Console.print("label = \(item.properties.label)")
        if let secret = item.secret {
            Console.write("secret = ")
            secret.value.withUnsafeBytes { Console.write(bytes: $0) }
            Console.write("\n")
        }
        Console.print("created = \(Self.secretToolTime(item.properties.created))")
        Console.print("modified = \(Self.secretToolTime(item.properties.modified))")
        var attributes = item.properties.attributes
        if let schema = attributes.removeValue(forKey: "xdg:schema") { Console.print("schema = \(schema)") }
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
            Console.print("attribute.\(name) = \(value)")
        }
    }

    /// secret-tool's date: UTC, `yyyy-MM-dd HH:mm:ss`, and empty for 0 (a provider that hides the dates of a
    /// locked item reports 0, which is not a date).
    static func secretToolTime(_ unixSeconds: UInt64) -> String {
        guard unixSeconds != 0 else { return "" }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(unixSeconds)))
    }
}

struct Clear: CofferCommand {
    static let configuration = CommandConfiguration(
        abstract: "Delete every matching item (secret-tool compatible). No match: exit status 44.",
        discussion: "Locked matches are unlocked first (which may prompt): providers refuse to delete locked items.")

    @OptionGroup var output: OutputOptions
    @OptionGroup var pairs: AttributePairs

    func execute() async throws {
        let attributes = try pairs.attributes()
        try await ProviderConnection.with { service in
            let (unlocked, locked) = try await service.searchItems(attributes)
            let matches = unlocked + locked
            guard !matches.isEmpty else { throw CofferError.notFound("no matching item") }
            if !locked.isEmpty { try await service.unlock(locked) }
            for item in matches { try await service.deleteItem(item) }
            if output.json { try JSONOutput.print(["deleted": matches.count]) }
        }
    }
}

struct Lock: CofferCommand {
    static let configuration = CommandConfiguration(
        abstract: "Lock a collection, or every collection without --collection (secret-tool compatible).",
        discussion: "Without --collection the in-memory 'session' collection is left unlocked, as gnome-keyring "
            + "leaves it; --collection=session locks it (on cofferd it then unlocks only through an approval prompt).")

    @Option(help: "The collection: alias, label, id or object path.")
    var collection: String?
    @OptionGroup var output: OutputOptions

    func execute() async throws {
        try await ProviderConnection.with { service in
            let targets = if let collection { [try await service.resolveCollection(collection)] } else {
                try await service.collectionsToLockAll()
            }
            let locked = try await service.lock(targets)
            if output.json { try JSONOutput.print(["locked": locked.map(\.rawValue)]) }
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// `coffer sync status FOLDER`: what a folder of synchronized collections holds, read-only (docs/SYNC.md).

import ArgumentParser
import CollectionSync
import Foundation
import SecretCrypto

struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Synchronize collections through a folder, stop doing so, and inspect such a folder.",
        discussion: """
            A synchronized collection lives in a folder that a sync engine (Syncthing, Nextcloud, a network share) \
            carries between machines: one journal per device, sealed with the collection's keys. cofferd writes \
            each change of a synchronized collection to its own journal and merges the other devices' journals \
            as they arrive. See docs/SYNC.md.
            """,
        subcommands: [SyncEnable.self, SyncJoin.self, SyncStatus.self, SyncLeave.self])
}

struct SyncStatus: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the synchronized collections in a folder, their devices and journals.",
        discussion: """
            Without --verify, shows what anyone who can read the folder sees: collection and device ids, journal \
            sizes and times, which devices left a password wrap. With --verify, asks the collection's password \
            (the first line of stdin when it is not a terminal), verifies every journal from its start and shows \
            each device's name, its records, whether the rest of its journal is still arriving, and why a journal \
            would be set aside (tampered, truncated, rolled back, forked). With --daemon, also asks the running \
            cofferd which keychain holds each collection (while it is unlocked) and which journals cofferd has set \
            aside: a journal stays set aside there even if a later copy of the file looks whole. Nothing is written.
            """)

    @Argument(help: ArgumentHelp("The folder the sync engine keeps in step.", valueName: "folder"))
    var folder: String

    @Option(help: ArgumentHelp("Only this collection (its 32-hex-digit id).", valueName: "id"))
    var collection: String?

    @Flag(help: "Ask the collection's password and verify every journal.")
    var verify = false

    @Flag(help: "Also ask the running cofferd which keychain holds each collection and which journals it set aside.")
    var daemon = false

    @OptionGroup var output: OutputOptions

    func execute() async throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CofferError(.noInput, "no folder at \(folder)")
        }
        var collections = try SyncFolder.collections(in: folder)
        if let collection {
            guard let chosen = SyncIdentifier(hex: collection) else {
                throw CofferError.badArguments("--collection takes a collection id: 32 lowercase hex digits")
            }
            guard collections.contains(chosen) else {
                throw CofferError(.noSuchKeychain, "no synchronized collection \(collection) in \(folder)")
            }
            collections = [chosen]
        }
        if verify && collections.count != 1 {
            throw CofferError.badArguments(collections.isEmpty ? "no synchronized collection in \(folder) to verify"
                : "\(folder) holds \(collections.count) synchronized collections; choose one with --collection")
        }
        var report = SyncStatusReport(folder: folder, collections: [])
        for id in collections {
            let place = SyncFolder(root: folder, collection: id)
            var entry = try SyncStatusReport.Collection(place)
            if verify { try entry.verify(place, password: readPassword()) }
            report.collections.append(entry)
        }
        if daemon {
            try await ProviderConnection.with { service in
                for index in report.collections.indices {
                    guard let merged = try await service.syncSetAside(report.collections[index].id) else { continue }
                    report.collections[index].keychain = merged.keychain
                    for (device, reason) in merged.journals {
                        report.collections[index].devices.indices.filter { report.collections[index].devices[$0].id == device }
                            .forEach { report.collections[index].devices[$0].setAsideByCofferd = reason }
                    }
                }
            }
        }
        if output.json { try JSONOutput.print(report) } else { Console.write(report.text) }
    }

    private func readPassword() throws -> SecretBytes {
        try SecretInput.read(prompt: "Password of the synchronized collection: ", piped: .firstLine)
    }
}

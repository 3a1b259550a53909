// SPDX-License-Identifier: Apache-2.0
// The sync folder watcher: a journal that arrived before its folder was watched is merged all the same.

import Foundation
import Logging
import SecretCrypto
@testable import SecretServiceDaemon
import SecretServiceProtocol
import SecretStore
import Testing

@Suite("Sync folder watcher")
struct SyncFolderWatcherTests {
    static let cheap = Argon2idParameters(iterations: 1, memoryKiB: 256, parallelism: 1)

    /// Copies the files of `from` (a sync folder) into `to`, each written beside and renamed into place.
    static func carry(_ from: String, to: String) throws {
        let manager = FileManager.default
        for collection in try manager.contentsOfDirectory(atPath: from) {
            try manager.createDirectory(atPath: to + "/" + collection, withIntermediateDirectories: true)
            for name in try manager.contentsOfDirectory(atPath: from + "/" + collection) {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: from + "/" + collection + "/" + name))
                let temporary = to + "/" + collection + "/." + name + ".tmp"
                try bytes.write(to: URL(fileURLWithPath: temporary))
                #expect(rename(temporary, to + "/" + collection + "/" + name) == 0)
            }
        }
    }

    @Test("a journal that arrived between the folder's opening and its watch is merged when the watch begins",
          .timeLimit(.minutes(1)))
    func arrivalBeforeTheWatch() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("watcher-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (firstFolder, secondFolder) = (root + "/first-folder", root + "/second-folder")
        for folder in [firstFolder, secondFolder] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let password = { try SecretBytes(copying: Array("pw".utf8)) }
        let first = SecretStore(directory: root + "/first", keyDerivation: Self.cheap)
        _ = try await first.loadCollections()
        _ = try await first.createCollection(label: "Login", alias: "", password: password(), preferredID: "login")
        _ = try await first.enableSync(of: "login", password: password(), folder: firstFolder)
        try Self.carry(firstFolder, to: secondFolder)
        let second = SecretStore(directory: root + "/second", keyDerivation: Self.cheap)
        _ = try await second.loadCollections()
        let (shared, _) = try await second.joinSync(folder: secondFolder, collection: nil, password: password(),
                                                    label: "Shared")

        // A change on the first machine reaches the second's folder before anyone watches it: no event will come.
        _ = try await first.createItem(in: "login", label: "late", attributes: ["k": "late"],
                                       secret: StoredSecret(value: try SecretBytes(copying: Array("s".utf8)), contentType: "text/plain"),
                                       replace: false)
        try Self.carry(firstFolder, to: secondFolder)
        #expect(try await second.search(in: shared, ["k": "late"]).isEmpty)

        var events = second.events.makeAsyncIterator()
        let watcher = SyncFolderWatcher(store: second, logger: .init(label: "test"))
        let watching = Task { await watcher.run() }
        defer { watching.cancel() }
        // Waits for the merge's item event; without a merge at the watch's start, the time limit ends the test.
        while let event = await events.next() {
            if case .itemCreated(let collection, _) = event, collection == shared { break }
        }
        #expect(try await second.search(in: shared, ["k": "late"]).count == 1)
        await first.close()
        await second.close()
    }
}

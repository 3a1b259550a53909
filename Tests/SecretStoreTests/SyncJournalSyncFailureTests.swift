// SPDX-License-Identifier: Apache-2.0
// A synchronized change whose journal the disk fails to sync: the journal's own failure is reported, though the
// collection file's sync (run at the same time) succeeded, and the next change catches the journal up.

import Foundation
import Glibc
import SecretCrypto
import SecretServiceProtocol
@testable import SecretStore
import Synchronization
import Testing

/// Syncs for real, except that while ``failJournals`` is set a sync of a `.journal` file fails with EIO.
final class JournalFailingSyncer: FileSyncing {
    private let failing = Mutex(false)
    private let replacing = FileSyncer()

    func failJournals(_ on: Bool) { failing.withLock { $0 = on } }

    func sync(_ fd: Int32) async -> Int32 {
        defer { close(fd) }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
        let path = length > 0 ? String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        if path.hasSuffix(".journal"), failing.withLock({ $0 }) { return EIO }
        return fsync(fd) == 0 ? 0 : errno
    }

    func replace(_ path: String, with bytes: [UInt8], directory: String) async -> ReplaceOutcome {
        await replacing.replace(path, with: bytes, directory: directory)
    }
}

@Suite("Synchronized collections: a journal the disk fails to sync")
struct SyncJournalSyncFailureTests {
    @Test("the change fails with the journal's error and stands locally; the next change catches the journal up")
    func journalSyncFails() async throws {
        let dir = try ScratchDirectory()
        let syncer = JournalFailingSyncer()
        let store = SecretStore(directory: dir.path,
                                keyDerivation: Argon2idParameters(iterations: 1, memoryKiB: 256, parallelism: 1),
                                syncer: syncer)
        _ = try await store.loadCollections()
        _ = try await store.createCollection(label: "Login", alias: "", password: password("pw"), preferredID: "login")
        let folder = dir.path + "-folder"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let enabled = try await store.enableSync(of: "login", password: password("pw"), folder: folder)
        var reader = try FolderReader(root: folder, enabled: enabled, password: "pw")
        _ = try reader.newRecords()

        syncer.failJournals(true)
        await #expect {
            _ = try await store.createItem(in: "login", label: "unsynced", attributes: ["k": "1"],
                                           secret: secret("s1"), replace: false)
        } throws: { error in
            guard case SecretServiceError.failed(let message) = error else { return false }
            return message.contains("not in the sync folder") && message.contains("the sync journal")
        }
        #expect(try await store.search(in: "login", ["k": "1"]).count == 1, "the change stands locally")

        syncer.failJournals(false)
        _ = try await store.createItem(in: "login", label: "next", attributes: ["k": "2"], secret: secret("s2"),
                                       replace: false)
        _ = try reader.newRecords()
        #expect(reader.itemsByLabel == ["unsynced": "s1", "next": "s2"])
    }
}

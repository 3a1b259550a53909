// SPDX-License-Identifier: Apache-2.0
// Writes are acknowledged only once durable, and the wait for the disk blocks no one else.

import Foundation
import Glibc
import SecretCrypto
import SecretServiceProtocol
@testable import SecretStore
import Synchronization
import Testing

/// Syncs for real, but while ``hold()`` is in force keeps each request until ``release(result:)``, announcing it on
/// ``held``; whole-file replacements likewise with ``holdReplacements()``, ``heldReplacements`` and
/// ``releaseReplacements()``: a disk as slow as a test needs it to be.
final class HeldSyncer: FileSyncing {
    private struct State {
        var holding = false
        var waiting: [(fd: Int32, done: CheckedContinuation<Int32, Never>)] = []
        var holdingReplacements = false
        var replacements: [(path: String, bytes: [UInt8], directory: String,
                            done: CheckedContinuation<ReplaceOutcome, Never>)] = []
    }

    private let state = Mutex(State())
    let held: AsyncStream<Void>
    private let heldSink: AsyncStream<Void>.Continuation

    let heldReplacements: AsyncStream<Void>
    private let heldReplacementSink: AsyncStream<Void>.Continuation

    init() {
        (held, heldSink) = AsyncStream.makeStream()
        (heldReplacements, heldReplacementSink) = AsyncStream.makeStream()
    }

    func holdReplacements() { state.withLock { $0.holdingReplacements = true } }

    /// Carries out every held replacement and stops holding them.
    func releaseReplacements() {
        let waiting = state.withLock { state in
            state.holdingReplacements = false
            defer { state.replacements = [] }
            return state.replacements
        }
        for request in waiting {
            request.done.resume(returning: .replacing(request.path, with: request.bytes, directory: request.directory))
        }
    }

    func replace(_ path: String, with bytes: [UInt8], directory: String) async -> ReplaceOutcome {
        await withCheckedContinuation { done in
            let holding = state.withLock { state in
                if state.holdingReplacements { state.replacements.append((path, bytes, directory, done)) }
                return state.holdingReplacements
            }
            if holding {
                heldReplacementSink.yield()
            } else {
                done.resume(returning: .replacing(path, with: bytes, directory: directory))
            }
        }
    }

    func hold() { state.withLock { $0.holding = true } }

    /// Answers every held request with `result` (syncing for real when it is 0) and stops holding.
    func release(result: Int32 = 0) {
        let waiting = state.withLock { state in
            state.holding = false
            defer { state.waiting = [] }
            return state.waiting
        }
        for request in waiting {
            let outcome = result == 0 ? (fsync(request.fd) == 0 ? 0 : errno) : result
            close(request.fd)
            request.done.resume(returning: outcome)
        }
    }

    func sync(_ fd: Int32) async -> Int32 {
        await withCheckedContinuation { done in
            let holding = state.withLock { state in
                if state.holding { state.waiting.append((fd, done)) }
                return state.holding
            }
            if holding {
                heldSink.yield()
            } else {
                let result = fsync(fd) == 0 ? 0 : errno
                close(fd)
                done.resume(returning: result)
            }
        }
    }
}

@Suite("Collection files: durable writes off the store's thread")
struct DurableWriteTests {
    static func store(in dir: ScratchDirectory, syncer: HeldSyncer) async throws -> SecretStore {
        let store = SecretStore(directory: dir.path,
                                keyDerivation: Argon2idParameters(iterations: 1, memoryKiB: 256, parallelism: 1),
                                syncer: syncer)
        _ = try await store.loadCollections()
        _ = try await store.createCollection(label: "T", alias: "", password: password("pw"), preferredID: "t")
        _ = try await store.createItem(in: "t", label: "first", attributes: ["k": "1"], secret: secret("one"),
                                       replace: false)
        return store
    }

    @Test("while a write waits for the disk, lookups are answered; the write is acknowledged only after the sync")
    func lookupsDoNotWaitForTheDisk() async throws {
        let dir = try ScratchDirectory()
        let syncer = HeldSyncer()
        let store = try await Self.store(in: dir, syncer: syncer)
        syncer.hold()
        let acknowledged = Acknowledgement()
        let write = Task {
            _ = try await store.createItem(in: "t", label: "second", attributes: ["k": "2"], secret: secret("two"),
                                           replace: false)
            acknowledged.raise()
        }
        var requests = syncer.held.makeAsyncIterator()
        _ = await requests.next()  // the write's record is on its way to the disk
        // The store answers while the sync is outstanding; with the fsync inside the store these would wait for it.
        #expect(try await store.search(in: "t", ["k": "1"]) == ["1"])
        #expect(String(decoding: try await store.secret(collection: "t", item: "1").value.copyBytes(), as: UTF8.self)
            == "one")
        #expect(!acknowledged.isRaised, "acknowledged before the record was durable")
        let ledger = try String(contentsOfFile: dir.path + "/generations", encoding: .utf8)
        syncer.release()
        try await write.value
        #expect(acknowledged.isRaised)
        // The generation is recorded only once its record is durable: a ledger ahead of its file reads as a rollback.
        #expect(!ledger.contains("t 4"), "the ledger moved before the record was synced:\n\(ledger)")
        #expect(try String(contentsOfFile: dir.path + "/generations", encoding: .utf8).contains("t 4"))
        await store.close()
        let restarted = try await dir.store()
        #expect(try await restarted.unlock("t", password: password("pw")))
        #expect(try await restarted.search(in: "t", [:]).count == 2)
    }

    @Test("while a compaction rewrites the file, lookups are answered; writes wait for the new file, then land in it")
    func compactionOffTheStoresThread() async throws {
        let dir = try ScratchDirectory()
        let syncer = HeldSyncer()
        let store = try await Self.store(in: dir, syncer: syncer)
        syncer.holdReplacements()
        // Rewrite one item until superseded records dominate and a compaction starts.
        var round = 0
        while await !store.collectionIsCompacting("t") {
            round += 1
            try #require(round <= 1_000, "no compaction started")
            try await store.setSecret(collection: "t", item: "1", to: secret("v\(round)"))
        }
        var replacements = syncer.heldReplacements.makeAsyncIterator()
        _ = await replacements.next()  // the new file is encoded and waits to be written
        // The store answers reads while the new file waits to be written.
        #expect(String(decoding: try await store.secret(collection: "t", item: "1").value.copyBytes(), as: UTF8.self)
            == "v\(round)")
        #expect(try await store.search(in: "t", ["k": "1"]) == ["1"])
        // A write made now must wait for the compaction: one that went into the old file would be lost when the new
        // file, written from a snapshot taken before it, replaces the old one; the restart below would show it.
        let write = Task {
            try await store.setSecret(collection: "t", item: "1", to: secret("after"))
        }
        syncer.releaseReplacements()
        try await write.value
        await store.close()
        let restarted = try await dir.store()
        #expect(try await restarted.unlock("t", password: password("pw")))
        #expect(String(decoding: try await restarted.secret(collection: "t", item: "1").value.copyBytes(),
                       as: UTF8.self) == "after")
        let size = try #require(FileManager.default.attributesOfItem(atPath: dir.file("t"))[.size] as? Int)
        #expect(size < 10_000, "the file was not compacted (\(size) bytes)")
    }

    @Test("a failed sync fails the write and locks the collection; the next unlock reads what the file holds")
    func failedSyncLocks() async throws {
        let dir = try ScratchDirectory()
        let syncer = HeldSyncer()
        let store = try await Self.store(in: dir, syncer: syncer)
        syncer.hold()
        let write = Task {
            try await store.setSecret(collection: "t", item: "1", to: secret("changed"))
        }
        var requests = syncer.held.makeAsyncIterator()
        _ = await requests.next()
        syncer.release(result: EIO)
        let error = await #expect(throws: SecretServiceError.self) { try await write.value }
        #expect("\(String(describing: error))".contains("cannot sync"))
        #expect(try await store.collectionInfo("t").isLocked)
        #expect(try await store.unlock("t", password: password("pw")), "the file still verifies")
    }
}

/// Set once a write returned.
final class Acknowledgement: Sendable {
    private let value = Atomic(false)
    func raise() { value.store(true, ordering: .sequentiallyConsistent) }
    var isRaised: Bool { value.load(ordering: .sequentiallyConsistent) }
}

// SPDX-License-Identifier: Apache-2.0
// The sync thread's lanes: distinct files at once, one file never twice at once, one sync for every request queued
// meanwhile, and each file's own answer.

import Dispatch
import Foundation
import Glibc
@testable import SecretStore
import Synchronization
import Testing

/// A disk the test controls: syncing file `held` announces itself on ``started`` and, the first time, waits for
/// ``release()`` (at most a deadline, so that a missing lane fails the test instead of hanging it); every sync is
/// logged in order.
final class GatedDisk: Sendable {
    let held: UInt64
    let started: AsyncStream<Void>
    private let startedSink: AsyncStream<Void>.Continuation
    private let gate = DispatchSemaphore(value: 0)
    private let state = Mutex<(log: [String], heldSyncs: Int)>(([], 0))

    init(holding path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else { throw POSIXError(.ENOENT) }
        held = UInt64(info.st_ino)
        (started, startedSink) = AsyncStream.makeStream()
    }

    var log: [String] { state.withLock { $0.log } }

    func note(_ event: String) { state.withLock { $0.log.append(event) } }

    func release() { gate.signal() }

    /// The stand-in for fsync.
    func sync(_ fd: Int32) -> Int32 {
        var info = stat()
        guard fstat(fd, &info) == 0, UInt64(info.st_ino) == held else {
            note("other synced")
            return 0
        }
        let count = state.withLock { state in
            state.heldSyncs += 1
            state.log.append("held sync \(state.heldSyncs) started")
            return state.heldSyncs
        }
        startedSink.yield()
        if count == 1, gate.wait(timeout: .now() + .seconds(20)) == .timedOut { note("held sync timed out") }
        note("held sync \(count) ended")
        return 0
    }
}

@Suite("The sync thread: lanes and group commit")
struct SyncThreadTests {
    static func file(_ dir: ScratchDirectory, _ name: String) throws -> (path: String, fd: Int32) {
        let path = dir.path + "/" + name
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        return (path, fd)
    }

    @Test("a request of several files answers each with its own result and closes every descriptor")
    func ownResults() async throws {
        let dir = try ScratchDirectory()
        let (_, fd) = try Self.file(dir, "file")
        defer { close(fd) }
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let thread = SyncThread(lanes: SyncThread.lanes)
        // A pipe cannot be synced (EINVAL): its failure must be its own, not the file's.
        let answers = await thread.sync([dup(fd), dup(ends[0]), dup(fd)])
        #expect(answers == [0, EINVAL, 0])
        #expect(await thread.sync([dup(ends[0])]) == [EINVAL])
        #expect(await thread.sync([]) == [])
    }

    @Test("a file's sync does not wait for another file's")
    func distinctFilesAtOnce() async throws {
        let dir = try ScratchDirectory()
        let (slowPath, slow) = try Self.file(dir, "slow")
        let (_, quick) = try Self.file(dir, "quick")
        defer { close(slow); close(quick) }
        let disk = try GatedDisk(holding: slowPath)
        let thread = SyncThread(lanes: SyncThread.lanes, syncFile: disk.sync)
        let slowSync = thread.begin([dup(slow)])
        var started = disk.started.makeAsyncIterator()
        _ = await started.next()
        #expect(await thread.sync([dup(quick)]) == [0])
        disk.note("quick answered")
        disk.release()
        #expect(await thread.answers(of: slowSync) == [0])
        #expect(disk.log == ["held sync 1 started", "other synced", "quick answered", "held sync 1 ended"])
    }

    @Test("requests for a file being synced wait for its next sync, and share it")
    func nextSyncGroupCommit() async throws {
        let dir = try ScratchDirectory()
        let (path, fd) = try Self.file(dir, "file")
        defer { close(fd) }
        let disk = try GatedDisk(holding: path)
        let thread = SyncThread(lanes: SyncThread.lanes, syncFile: disk.sync)
        let first = thread.begin([dup(fd)])
        var started = disk.started.makeAsyncIterator()
        _ = await started.next()
        // Written after the first sync began: only a later sync covers them.
        let second = thread.begin([dup(fd)])
        let third = thread.begin([dup(fd)])
        disk.release()
        #expect(await thread.answers(of: first) == [0])
        #expect(await thread.answers(of: second) == [0])
        #expect(await thread.answers(of: third) == [0])
        #expect(disk.log == ["held sync 1 started", "held sync 1 ended", "held sync 2 started", "held sync 2 ended"])
    }
}

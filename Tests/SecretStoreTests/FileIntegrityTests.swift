// SPDX-License-Identifier: Apache-2.0
// What a writer of the data directory can try: a second store, swapped bytes, costly parameters, odd names, links.

import Foundation
import Glibc
import SecretCrypto
import SecretServiceProtocol
@testable import SecretStore
import Testing

@Suite("Collection files: integrity against a writer of the data directory")
struct FileIntegrityTests {
    /// A directory holding collection `t` (password `pw`) with one item, and no store alive.
    static func directoryWithCollection() async throws -> ScratchDirectory {
        let dir = try ScratchDirectory()
        let store = try await dir.store()
        _ = try await store.createCollection(label: "T", alias: "", password: password("pw"), preferredID: "t")
        _ = try await store.createItem(in: "t", label: "genuine", attributes: ["k": "v"], secret: secret("s"),
                                       replace: false)
        return dir
    }

    /// Where the header of collection `t` ends: magic, version, id "t", created, index key.
    static let headerLength = 8 + 2 + 2 + 1 + 8 + 32

    @Test("a second store on a directory another store holds is refused, naming the holder; release frees it")
    func oneStorePerDirectory() async throws {
        let dir = try await Self.directoryWithCollection()
        let holder = try await dir.store()
        let error = await #expect(throws: SecretServiceError.self) { _ = try await dir.openAnother() }
        #expect("\(String(describing: error))".contains("in use by another cofferd (pid \(getpid()))"))
        let seen = DirectoryLock.holder(of: dir.path)
        #expect(seen.held && seen.pid == getpid())
        await holder.close()
        #expect(DirectoryLock.holder(of: dir.path).held == false)
        #expect(try await dir.store().collectionIDs().contains("t"))
    }

    @Test("unlock verifies and loads the same bytes: a file that hands each reader other bytes is refused")
    func unlockReadsOnce() async throws {
        let dir = try await Self.directoryWithCollection()
        let genuine = try #require(FileManager.default.contents(atPath: dir.file("t")))
        let store = try await dir.store()
        // Swap the file for a FIFO that serves the genuine bytes to its first reader and a forged file (the
        // collection's label changed; the chain no longer verifies) to the second: a reader that verifies one read
        // and loads another would accept the forgery.
        var forged = [UInt8](genuine)
        // The label's length, "T", then the first byte of the modified time.
        let label = try #require(forged.firstRange(of: [0, 1] + Array("T".utf8) + [0]))
        forged[label.lowerBound + 2] = UInt8(ascii: "F")
        try FileManager.default.removeItem(atPath: dir.file("t"))
        #expect(mkfifo(dir.file("t"), 0o600) == 0)
        let feeder = FIFOFeeder(path: dir.file("t"), payloads: [[UInt8](genuine), forged])
        let unlocked = try? await store.unlock("t", password: password("pw"))
        feeder.finish()
        #expect(unlocked != true, "the collection unlocked from a FIFO")
        let served = try? await store.collectionInfo("t").label
        #expect(served != "F", "the forged label was loaded")
    }

    @Test("key-derivation costs beyond the bounds are refused at load as damage, without deriving, file untouched")
    func wrapParametersAreBounded() async throws {
        let dir = try await Self.directoryWithCollection()
        var bytes = try #require(FileManager.default.contents(atPath: dir.file("t")))
        // The key wrap is the first record: length u32, type u8, sequence u64, then iterations u32 and memory u32.
        let iterations = Self.headerLength + 4 + 1 + 8
        bytes.replaceSubrange(iterations..<iterations + 8, with: [0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x40, 0x00, 0x00])
        try bytes.write(to: URL(fileURLWithPath: dir.file("t")))
        let store = try await dir.store()
        let problem = try #require(await store.unavailableCollections().first { $0.id == "t" })
        #expect(problem.reason.contains("outside the accepted bounds"))
        await #expect(throws: SecretServiceError.self) { _ = try await store.unlock("t", password: password("pw")) }
        #expect(FileManager.default.contents(atPath: dir.file("t")) == bytes)
    }

    @Test("bounds: the default and the cheapest parameters pass; each limit and the product are enforced")
    func boundsThemselves() {
        #expect(Argon2idParameters.default.isWithinWrapBounds)
        #expect(Argon2idParameters(iterations: 1, memoryKiB: 8, parallelism: 1).isWithinWrapBounds)
        #expect(!Argon2idParameters(iterations: 17, memoryKiB: 256, parallelism: 1).isWithinWrapBounds)
        #expect(!Argon2idParameters(iterations: 1, memoryKiB: 1024 * 1024 + 1, parallelism: 1).isWithinWrapBounds)
        #expect(!Argon2idParameters(iterations: 1, memoryKiB: 256, parallelism: 5).isWithinWrapBounds)
        #expect(!Argon2idParameters(iterations: 16, memoryKiB: 1024 * 1024, parallelism: 1).isWithinWrapBounds)
        #expect(Argon2idParameters(iterations: 4, memoryKiB: 1024 * 1024, parallelism: 1).isWithinWrapBounds)
    }

    @Test("a file whose name is not a valid collection id is reported, never served")
    func oddFileNames() async throws {
        let dir = try await Self.directoryWithCollection()
        // A well-formed file for collection "x-y": a name no object path can carry.
        var bytes = [UInt8](try #require(FileManager.default.contents(atPath: dir.file("t"))))
        bytes.replaceSubrange(10..<13, with: [0, 3] + Array("x-y".utf8))
        try Data(bytes).write(to: URL(fileURLWithPath: dir.path + "/x-y.coffer"))
        let store = try await dir.store()
        #expect(await store.collectionIDs().contains("x-y") == false)
        let problem = try #require(await store.unavailableCollections().first { $0.id == "x-y" })
        #expect(problem.reason.contains("not a valid collection id"))
        #expect(await store.collectionIDs().contains("t"))
    }

    @Test("a generations line that is not exactly '<id> <number>' is reported and never guessed at")
    func oddLedgerLines() async throws {
        let dir = try await Self.directoryWithCollection()
        let ledger = dir.path + "/generations"
        let original = try String(contentsOfFile: ledger, encoding: .utf8)
        // "+9999" would read as 9999 to a lenient parser, making t look rolled back and locking the user out.
        try (original + "t +9999\nx-y 3\n").write(toFile: ledger, atomically: false, encoding: .utf8)
        let store = try await dir.store()
        let before = original.split(separator: "\n").count
        #expect(await store.ledgerProblems() == ["line \(before + 1) is not '<collection id> <generation>'",
                                                 "line \(before + 2) is not '<collection id> <generation>'"])
        #expect(try await store.unlock("t", password: password("pw")))
    }

    @Test("a link planted at a temporary file's name redirects no write; stale temporaries go at start")
    func temporaryFilesAreExclusive() async throws {
        let dir = try await Self.directoryWithCollection()
        let victim = dir.path + "/../victim-\(UUID().uuidString)"
        try Data("untouched".utf8).write(to: URL(fileURLWithPath: victim))
        defer { unlink(victim) }
        #expect(symlink(victim, dir.path + "/stale.coffer.tmp") == 0)
        let store = try await dir.store()
        #expect(!POSIXFile.exists(dir.path + "/stale.coffer.tmp"), "a stale temporary file was kept")
        // Planted after start, where the next new collection writes its first version.
        #expect(symlink(victim, dir.path + "/n.coffer.tmp") == 0)
        _ = try await store.createCollection(label: "N", alias: "", password: password("pw"), preferredID: "n")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "untouched")
        var info = stat()
        #expect(lstat(dir.file("n"), &info) == 0 && info.st_mode & S_IFMT == S_IFREG)
    }
}

/// Writes each payload to one reader of a FIFO in turn, on its own thread (opening a FIFO blocks until both ends
/// are open). ``finish()`` lets a writer still waiting for a reader through and waits for the thread to end.
final class FIFOFeeder: @unchecked Sendable {
    private let path: String
    private let thread: Thread
    private let done = DispatchSemaphore(value: 0)

    init(path: String, payloads: [[UInt8]]) {
        self.path = path
        let done = self.done
        thread = Thread {
            signal(SIGPIPE, SIG_IGN)
            for payload in payloads {
                let fd = open(path, O_WRONLY)
                guard fd >= 0 else { break }
                _ = payload.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                close(fd)
            }
            done.signal()
        }
        thread.start()
    }

    func finish() {
        // While a reader is open every open for writing goes through at once, and the payloads (a small file each)
        // fit in the pipe's buffer, so the thread runs to its end.
        let reader = open(path, O_RDONLY | O_NONBLOCK)
        done.wait()
        if reader >= 0 { close(reader) }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Keychain's async calls await the SecItem core on the connection's loop: many calls in flight hold no thread each.

import DBusTransport
import DBusWire
import Foundation
import CofferKeychain
@testable import Security
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

/// Owns `org.freedesktop.secrets`; offers only a plain session; holds `SearchItems` replies until `batch` calls are
/// waiting, counts this process's threads at that moment, then answers each with no items.
private struct HeldSearchProvider {
    let server: Task<Void, Never>

    static func threadCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }

    /// - Returns: the provider, and a task that ends with the thread counts taken at each full batch.
    static func start(on bus: TestBus, batches: [Int]) async throws -> (HeldSearchProvider, Task<[Int], Never>) {
        let connection = try await StandInService.claimSecretService(on: bus)
        let (counts, continuation) = AsyncStream.makeStream(of: Int.self)
        let server = StandInService.run(on: connection) {
            var held: [Message] = []
            var remaining = batches
            for await call in connection.messages where call.kind == .methodCall {
                switch call.member?.rawValue {
                case "OpenSession":
                    _ = try? await connection.send(StandInService.openSessionReply(to: call))
                case "SearchItems":
                    held.append(call)
                    guard held.count == remaining.first else { continue }
                    remaining.removeFirst()
                    continuation.yield(threadCount())
                    for call in held {
                        _ = try? await connection.send(call.makeReply([.objectPaths([]), .objectPaths([])]))
                    }
                    held.removeAll()
                    if remaining.isEmpty { continuation.finish() }
                default:
                    _ = try? await connection.send(call.makeErrorReply(DBusError(.unknownMethod, "not scripted")))
                }
            }
        }
        let collected = Task {
            var taken: [Int] = []
            for await count in counts { taken.append(count) }
            return taken
        }
        return (HeldSearchProvider(server: server), collected)
    }
}

extension KeychainSuites {
    @Suite("Async core")
    struct AsyncCoreTests {
        @Test("many async reads in flight at once add no thread per call", .timeLimit(.minutes(1)))
        func noThreadPerCall() async throws {
            let cores = ProcessInfo.processInfo.activeProcessorCount
            // Far more calls than the concurrency pool could add threads, so a thread per call cannot hide in it, and
            // so the bound below can leave room for threads that suites running beside this one start meanwhile
            // (their connections' loops, the pool's own growth): the count is the whole process's.
            let calls = max(64, 16 * cores)
            try await TestBus.withPrivateBus { bus in
                let (provider, counts) = try await HeldSearchProvider.start(on: bus, batches: [1, calls])
                let configuration = KeychainConfiguration(busAddress: bus.address, accessGroup: testGroup,
                                                          allowsPlainSession: true, lockDirectory: bus.directory.path)
                let keychain = Keychain(service: "held").configuration(configuration)
                // The first call opens the connection (its loop thread is then part of the baseline).
                #expect(try await keychain.getData("warm-up") == nil)
                let baseline = HeldSearchProvider.threadCount()
                try await withDeadline(.seconds(30), waitingFor: "\(calls) reads held by the provider") {
                    try await withThrowingTaskGroup(of: Data?.self) { group in
                        for index in 0..<calls {
                            group.addTask { try await keychain.getData("key\(index)") }
                        }
                        for try await data in group { #expect(data == nil) }
                    }
                }
                let observed = await counts.value
                #expect(observed.count == 2)
                let peak = observed.last ?? 0
                // A thread per call would add `calls` threads; without one, only the pool and other suites add any.
                #expect(peak - baseline < calls / 4,
                        "\(calls) calls in flight: \(baseline) threads before, \(peak) while they waited")
                await KeychainLibrary.closeConnection(for: configuration)
                provider.server.cancel()
            }
        }
    }
}

extension KeychainSuites.AsyncCoreTests {
    @Test("an async write waits for another writer's lock, then writes", .timeLimit(.minutes(1)))
    func asyncWriteWaitsForLock() async throws {
        try await withKeychain(.cofferd) { bus, _, _ in
            let keychain = Keychain(service: "locked")
            let configuration = KeychainConfiguration.current
            // The blocking acquire: the lock is free, so this returns at once.
            let held = try FileLock.acquire(for: configuration, environment: ProcessInfo.processInfo.environment)
            let lockFile = try #require(try FileManager.default.contentsOfDirectory(atPath: bus.directory.path)
                .first { $0.hasPrefix("coffer-keychain-") && $0.hasSuffix(".lock") })
            // The writer opens the lock file to take it: that open is the event that it has reached the lock.
            let opened = try FileEvents(bus.directory.appendingPathComponent(lockFile).path, mask: UInt32(IN_OPEN))
            let writer = Task {
                try await KeychainConfiguration.withConfiguration(configuration) {
                    try await keychain.set("written", key: "k")
                }
            }
            try await withDeadline(.seconds(30), waitingFor: "the write to reach the lock") {
                for await _ in opened.wakeUps { return }
            }
            #expect(try keychain.getString("k") == nil, "the write went ahead while another writer held the lock")
            _ = consume held  // closing the descriptor releases the lock
            try await withDeadline(.seconds(30), waitingFor: "the write after the lock was released") {
                try await writer.value
            }
            #expect(try keychain.getString("k") == "written")
        }
    }
}

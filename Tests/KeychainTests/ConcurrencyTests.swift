// SPDX-License-Identifier: Apache-2.0
// SecItem calls from many threads, from tasks that fill the concurrency pool, and from two processes at once.

import Foundation
import CofferKeychain
import SecretServiceClient
import SecretServiceTestSupport
import Synchronization
import Testing

extension KeychainSuites {
    @Suite("Concurrency")
    struct ConcurrencyTests {
        /// Collects results from threads; the last one to finish resumes the waiting task.
        private final class Collector<T: Sendable>: Sendable {
            private let results = Mutex<[Int: T]>([:])
            private let count: Int
            private let continuation: CheckedContinuation<[T], Never>

            init(count: Int, continuation: CheckedContinuation<[T], Never>) {
                self.count = count
                self.continuation = continuation
            }

            func record(_ value: T, at index: Int) {
                let all: [T]? = results.withLock { results in
                    results[index] = value
                    return results.count == count ? (0..<count).map { results[$0]! } : nil
                }
                if let all { continuation.resume(returning: all) }
            }
        }

        /// Runs `body` on `count` threads of their own, all at once, with the calling task's configuration.
        private func onThreads<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) -> T) async -> [T] {
            let configuration = KeychainConfiguration.current
            return await withCheckedContinuation { continuation in
                let collector = Collector<T>(count: count, continuation: continuation)
                for index in 0..<count {
                    Thread {
                        collector.record(KeychainConfiguration.withConfiguration(configuration) { body(index) },
                                         at: index)
                    }.start()
                }
            }
        }

        @Test("16 threads at once: each keeps its own item consistent, one shared key gets exactly one item",
              arguments: Provider.allCases)
        func manyThreads(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, client in
                let outcomes = await onThreads(16) { index -> (Bool, OSStatus) in
                    let account = "own-\(index)"
                    var consistent = addGenericPassword(service: "threads", account: account, password: "v1") == 0
                    consistent = consistent && readGenericPassword(service: "threads", account: account) == (0, "v1")
                    let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                                kSecAttrService as String: "threads", kSecAttrAccount as String: account]
                    consistent = consistent && SecItemUpdate(query as CFDictionary,
                                                             [kSecValueData as String: Data("v2".utf8)] as CFDictionary) == 0
                    consistent = consistent && readGenericPassword(service: "threads", account: account) == (0, "v2")
                    let shared = addGenericPassword(service: "threads", account: "shared", password: "\(index)")
                    consistent = consistent && SecItemDelete(query as CFDictionary) == 0
                    return (consistent, shared)
                }
                #expect(outcomes.allSatisfy { $0.0 })
                #expect(outcomes.filter { $0.1 == errSecSuccess }.count == 1)
                #expect(outcomes.filter { $0.1 == errSecDuplicateItem }.count == 15)
                let left = try await client.searchItems(["service": "threads"])
                #expect(left.unlocked.count + left.locked.count == 1)
            }
        }

        /// cofferd only: it needs an unlock prompt, which headless gnome-keyring cannot show.
        @Test("blocking callers that fill the concurrency pool still get through an unlock prompt")
        func poolFullDuringPrompt() async throws {
            try await withKeychain(.cofferd) { _, _, client in
                #expect(addGenericPassword(service: "pool", account: "a", password: "behind a prompt") == errSecSuccess)
                try await client.lock([try await client.defaultCollection()])
                // More blocking calls than the pool has threads: if the prompt's completion signal needed a pool
                // thread, none would be free to deliver it.
                let width = max(ProcessInfo.processInfo.activeProcessorCount, 2) * 2
                let results = await withTaskGroup(of: (OSStatus, String?).self) { group in
                    for _ in 0..<width {
                        group.addTask { readGenericPassword(service: "pool", account: "a") }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
                #expect(results.count == width)
                #expect(results.allSatisfy { $0 == (errSecSuccess, "behind a prompt") })
            }
        }

        @Test("two processes adding the same primary keys at once create exactly one item per key",
              arguments: Provider.allCases)
        func twoProcesses(provider: Provider) async throws {
            try await withKeychain(provider) { bus, _, client in
                let count = 25
                let helper = try Self.helperURL()
                let processes = try (0..<2).map { _ in
                    try HelperProcess(helper, [bus.address, bus.directory.path, testGroup, String(count)])
                }
                for process in processes { try await process.waitUntilReady() }
                for process in processes { process.start() }
                var successes: [String: Int] = [:]
                for process in processes {
                    let output = await process.finish()
                    try #require(output.status == 0, "\(output.stderr)")
                    let lines = output.lines
                    #expect(lines.count == count)
                    for line in lines {
                        let parts = line.split(separator: " ")
                        let status = Int32(parts.last ?? "") ?? 1
                        #expect(status == errSecSuccess || status == errSecDuplicateItem, "\(line)")
                        if status == errSecSuccess { successes[String(parts[0]), default: 0] += 1 }
                    }
                }
                #expect(successes.count == count)
                #expect(successes.values.allSatisfy { $0 == 1 })
                let stored = try await client.searchItems(["service": "race"])
                #expect(stored.unlocked.count + stored.locked.count == count)
            }
        }

        /// The built helper: next to the test binary, else in `.build/debug` above this file.
        static func helperURL(filePath: String = #filePath) throws -> URL {
            var candidates: [URL] = []
            if let first = CommandLine.arguments.first, first.contains("/") {
                candidates.append(URL(fileURLWithPath: first).resolvingSymlinksInPath().deletingLastPathComponent()
                    .appendingPathComponent("keychain-race-helper"))
            }
            if let executable = Bundle.main.executableURL {
                candidates.append(executable.resolvingSymlinksInPath().deletingLastPathComponent()
                    .appendingPathComponent("keychain-race-helper"))
            }
            var directory = URL(fileURLWithPath: filePath).deletingLastPathComponent()
            while directory.path != "/" {
                candidates.append(directory.appendingPathComponent(".build/debug/keychain-race-helper"))
                directory.deleteLastPathComponent()
            }
            guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
                throw DaemonHarness.StartError(
                    "keychain-race-helper is not built (swift build --product keychain-race-helper)")
            }
            return found
        }
    }
}

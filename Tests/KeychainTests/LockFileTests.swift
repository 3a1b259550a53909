// SPDX-License-Identifier: Apache-2.0
// The cross-process write lock lives only in a directory that is the user's own: the runtime directory, else the
// user's cache directory; anywhere else, writes fail.

import Foundation
import Glibc
import CofferKeychain
import SecretServiceTestSupport
import Testing

extension KeychainSuites {
    @Suite("Keychain lock file")
    struct LockFileTests {
        /// A fresh directory under the bus's own, with `mode`.
        static func directory(_ name: String, in bus: TestBus, mode: mode_t) throws -> URL {
            let url = bus.directory.appendingPathComponent(name, isDirectory: true)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
            try #require(chmod(url.path, mode) == 0)
            return url
        }

        /// Adds an item with the lock taken in `lockDirectory`; returns the status and whether the item exists.
        static func add(on bus: TestBus, lockDirectory: URL, account: String) -> (OSStatus, stored: Bool) {
            let configuration = KeychainConfiguration(busAddress: bus.address, accessGroup: testGroup,
                                                      lockDirectory: lockDirectory.path)
            return KeychainConfiguration.withConfiguration(configuration) {
                let status = addGenericPassword(service: "lock", account: account, password: "p")
                return (status, readGenericPassword(service: "lock", account: account).0 == errSecSuccess)
            }
        }

        @Test("a lock directory open to group or others is refused, and nothing is written")
        func openDirectory() async throws {
            try await withKeychain { bus, _, _ in
                for (index, mode) in [0o755, 0o750, 0o1777, 0o703].enumerated() {
                    let open = try Self.directory("open-\(index)", in: bus, mode: mode_t(mode))
                    #expect(Self.add(on: bus, lockDirectory: open, account: "open-\(index)") == (errSecNotAvailable, false),
                            "mode \(String(mode, radix: 8))")
                }
                let mine = try Self.directory("mine", in: bus, mode: 0o700)
                #expect(Self.add(on: bus, lockDirectory: mine, account: "mine") == (errSecSuccess, true))
            }
        }

        @Test("a lock directory owned by another user is refused", .enabled(if: getuid() == 0, "needs chown"))
        func foreignOwner() async throws {
            try await withKeychain { bus, _, _ in
                let foreign = try Self.directory("foreign", in: bus, mode: 0o700)
                try #require(chown(foreign.path, 65534, 65534) == 0)
                #expect(Self.add(on: bus, lockDirectory: foreign, account: "foreign") == (errSecNotAvailable, false))
            }
        }

        @Test("a symlinked lock directory or lock file is refused, and the link's target is left alone")
        func symlinks() async throws {
            try await withKeychain { bus, _, _ in
                let mine = try Self.directory("mine", in: bus, mode: 0o700)
                let link = bus.directory.appendingPathComponent("link")
                try FileManager.default.createSymbolicLink(at: link, withDestinationURL: mine)
                #expect(Self.add(on: bus, lockDirectory: link, account: "via-link") == (errSecNotAvailable, false))

                // A first write creates the lock file; then it is replaced by a link to somebody else's file.
                #expect(Self.add(on: bus, lockDirectory: mine, account: "first") == (errSecSuccess, true))
                let names = try FileManager.default.contentsOfDirectory(atPath: mine.path)
                let name = try #require(names.first { $0.hasPrefix("coffer-keychain-") && $0.hasSuffix(".lock") })
                let target = bus.directory.appendingPathComponent("target")
                try Data("untouched".utf8).write(to: target)
                try FileManager.default.removeItem(at: mine.appendingPathComponent(name))
                try FileManager.default.createSymbolicLink(at: mine.appendingPathComponent(name),
                                                           withDestinationURL: target)
                #expect(Self.add(on: bus, lockDirectory: mine, account: "second") == (errSecNotAvailable, false))
                #expect(try Data(contentsOf: target) == Data("untouched".utf8))
            }
        }

        /// Runs the race helper (two adds) with no `XDG_RUNTIME_DIR` and `home` as `HOME`; returns its lines.
        static func addsWithoutRuntimeDirectory(on bus: TestBus, home: URL, runtime: String? = nil) async throws
            -> [String] {
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_RUNTIME_DIR"] = runtime
            environment["XDG_CACHE_HOME"] = nil
            environment["HOME"] = home.path
            let helper = try HelperProcess(try ConcurrencyTests.helperURL(), [bus.address, "", testGroup, "2"],
                                           environment: environment)
            try await helper.waitUntilReady()
            helper.start()
            let output = await helper.finish()
            try #require(output.status == 0, "\(output.stderr)")
            return output.lines
        }

        /// The lock files in the shared temporary directory.
        static func sharedLocks() -> Set<String> {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())) ?? []
            return Set(names.filter { $0.hasPrefix("coffer-keychain-") })
        }

        @Test("without XDG_RUNTIME_DIR, or with one open to others, the lock goes to ~/.cache/coffer, made private")
        func noRuntimeDirectory() async throws {
            try await withKeychain { bus, _, _ in
                let before = Self.sharedLocks()
                let home = try Self.directory("lock-home", in: bus, mode: 0o755)
                let lines = try await Self.addsWithoutRuntimeDirectory(on: bus, home: home)
                #expect(lines == ["race-0 \(errSecSuccess)", "race-1 \(errSecSuccess)"])
                let cache = home.appendingPathComponent(".cache/coffer")
                var status = stat()
                try #require(stat(cache.path, &status) == 0, "no \(cache.path)")
                #expect(status.st_mode & 0o7777 == 0o700)
                let names = try FileManager.default.contentsOfDirectory(atPath: cache.path)
                #expect(names.count == 1 && names[0].hasPrefix("coffer-keychain-") && names[0].hasSuffix(".lock"))
                #expect(Self.sharedLocks() == before)
                #expect(readGenericPassword(service: "race", account: "race-1").0 == errSecSuccess)

                // A runtime directory open to others is passed over for the same private place.
                let open = try Self.directory("open-runtime", in: bus, mode: 0o755)
                let race = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "race"]
                #expect(SecItemDelete(race as CFDictionary) == errSecSuccess)
                let again = try await Self.addsWithoutRuntimeDirectory(on: bus, home: home, runtime: open.path)
                #expect(again == ["race-0 \(errSecSuccess)", "race-1 \(errSecSuccess)"])
                #expect(try FileManager.default.contentsOfDirectory(atPath: open.path).isEmpty)
            }
        }

        @Test("a cache directory open to others is refused too, and nothing is written")
        func openCacheDirectory() async throws {
            try await withKeychain { bus, _, _ in
                let home = try Self.directory("lock-home", in: bus, mode: 0o755)
                let cache = home.appendingPathComponent(".cache/coffer")
                try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
                try #require(chmod(cache.path, 0o755) == 0)
                let lines = try await Self.addsWithoutRuntimeDirectory(on: bus, home: home)
                #expect(lines == ["race-0 \(errSecNotAvailable)", "race-1 \(errSecNotAvailable)"])
                #expect(try FileManager.default.contentsOfDirectory(atPath: cache.path).isEmpty)
                #expect(readGenericPassword(service: "race", account: "race-0").0 == errSecItemNotFound)
            }
        }
    }
}

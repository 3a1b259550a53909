// SPDX-License-Identifier: Apache-2.0
// The cross-process write lock lives only in a directory that is the user's own; anywhere else, writes fail.

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

        @Test("without XDG_RUNTIME_DIR and a lock directory, writes fail rather than lock in a shared place")
        func noRuntimeDirectory() async throws {
            try await withKeychain { bus, _, _ in
                let shared = FileManager.default.temporaryDirectory.path
                func sharedLocks() -> Set<String> {
                    let names = (try? FileManager.default.contentsOfDirectory(atPath: shared)) ?? []
                    return Set(names.filter { $0.hasPrefix("coffer-keychain-") })
                }
                let before = sharedLocks()
                var environment = ProcessInfo.processInfo.environment
                environment["XDG_RUNTIME_DIR"] = nil
                let helper = try HelperProcess(try ConcurrencyTests.helperURL(), [bus.address, "", testGroup, "2"],
                                               environment: environment)
                try await helper.waitUntilReady()
                helper.start()
                let output = await helper.finish()
                try #require(output.status == 0, "\(output.stderr)")
                #expect(output.lines == ["race-0 \(errSecNotAvailable)", "race-1 \(errSecNotAvailable)"])
                #expect(sharedLocks() == before)
                #expect(readGenericPassword(service: "race", account: "race-0").0 == errSecItemNotFound)
            }
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// A full disk and a read-only data directory: writes fail with an error, nothing is lost, reads go on.

import DBusWire
import Foundation
import Glibc
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

@Suite("Faults: a full disk and a read-only data directory", .timeLimit(.minutes(3)))
struct DiskFaultTests {
    static let login = DaemonSequence.loginPath

    /// What the client was told succeeded: the items by their `disk-id`, and the login password.
    struct Acknowledged {
        var items: [String: ItemState] = [:]
        var paths: [String: ObjectPath] = [:]
        var password = DaemonHarness.testLoginPassword
        var next = 0
    }

    /// One kind of write, each touching the disk a different way.
    enum Write: CaseIterable {
        case create, createLarge, setSecret, setLabel, setAttributes, delete, changePassword, createCollection
    }

    /// cofferd inside `namespace`, which holds its data directory.
    static func options(_ name: String, _ namespace: MountNamespace, password: String?)
        -> DaemonHarness.SubprocessOptions {
        var options = DaemonSequence.options(name, loginPassword: password)
        options.launcher = namespace.launcher
        return options
    }

    /// Runs `body` with a daemon sequence whose data directory is set up by `namespace`'s script.
    static func withNamespacedDaemons(_ makeNamespace: (URL) async throws -> MountNamespace,
                                      _ body: (DaemonSequence, MountNamespace) async throws -> Void) async throws {
        try await withDaemonSequence { daemons in
            let namespace = try await makeNamespace(daemons.dataDirectory)
            do {
                try await body(daemons, namespace)
            } catch {
                await namespace.close()
                throw error
            }
            await namespace.close()
        }
    }

    /// Performs `write`; on success records it in `acknowledged`.
    /// - Returns: the error the daemon answered with, or `nil` when it acknowledged the write.
    static func attempt(_ write: Write, _ client: SecretService, _ acknowledged: inout Acknowledged) async
        -> SecretServiceError? {
        acknowledged.next += 1
        let id = "d\(acknowledged.next)"
        let target = acknowledged.items.keys.sorted().first
        do {
            switch write {
            case .create, .createLarge:
                let padding = write == .createLarge ? String(repeating: "L", count: 256 * 1024) : ""
                let state = ItemState(label: "disk \(id)", attributes: ["fault": "disk", "disk-id": id],
                                      secret: "\(id)|\(padding)")
                acknowledged.paths[id] = try await client.createItem(
                    in: login, label: state.label, attributes: state.attributes, secret: secret(state.secret),
                    replace: false)
                acknowledged.items[id] = state
            case .setSecret:
                guard let target, let path = acknowledged.paths[target] else { return nil }
                try await client.setSecret(of: path, to: secret("\(target) v\(id)"))
                acknowledged.items[target]?.secret = "\(target) v\(id)"
            case .setLabel:
                guard let target, let path = acknowledged.paths[target] else { return nil }
                try await client.setLabel(of: path, to: "relabelled \(id)")
                acknowledged.items[target]?.label = "relabelled \(id)"
            case .setAttributes:
                guard let target, let path = acknowledged.paths[target] else { return nil }
                let attributes = ["fault": "disk", "disk-id": target, "changed": id]
                try await client.setAttributes(of: path, to: attributes)
                acknowledged.items[target]?.attributes = attributes
            case .delete:
                guard let target, let path = acknowledged.paths[target] else { return nil }
                try await client.deleteItem(path)
                acknowledged.items[target] = nil
                acknowledged.paths[target] = nil
            case .changePassword:
                let new = "password \(id)"
                try await FaultCalls.changePassword(client, login, from: acknowledged.password, to: new)
                acknowledged.password = new
            case .createCollection:
                // A new collection is a new file written whole: temporary file, rename.
                _ = try await FaultCalls.gnomeInternal(client, "CreateWithMasterPassword", [
                    .variantDictionary([SecretPropertyKeys.collectionLabel: .string("disk \(id)")]),
                    try FaultCalls.master(client, "collection password"),
                ])
            }
            return nil
        } catch let error as SecretServiceError {
            return error
        } catch let error as DBusError {
            return SecretServiceError(error)
        } catch {
            return .failed("not a D-Bus error: \(error)")
        }
    }

    /// Reads every `fault=disk` item back and compares it with what was acknowledged.
    static func expectIntact(_ client: SecretService, _ acknowledged: Acknowledged, _ context: String,
                             sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let read = try await FaultCalls.readAll(client, matching: ["fault": "disk"], keyedBy: "disk-id")
        #expect(read.locked == 0 && read.duplicates.isEmpty, "\(context): \(read.locked) locked, duplicates \(read.duplicates)",
                sourceLocation: sourceLocation)
        #expect(read.items == acknowledged.items, "\(context): the items differ from the acknowledged writes",
                sourceLocation: sourceLocation)
    }

    /// Fills the file system holding `url` by writing zeros to it until the kernel refuses.
    /// - Returns: how many bytes it took.
    static func fill(_ url: URL) -> Int {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return -1 }
        defer { close(fd) }
        var total = 0
        for size in [65_536, 4096, 1] {
            let zeros = [UInt8](repeating: 0, count: size)
            while true {
                let written = zeros.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, size) }
                guard written > 0 else { break }
                total += written
            }
        }
        return total
    }

    @Test("a full disk: every write fails with an error or is kept, reads go on, writes work once space is back")
    func diskFull() async throws {
        try await Self.withNamespacedDaemons({ try await MountNamespace.tmpfs(at: $0, kibibytes: 2048) }) {
            daemons, namespace in
            var acknowledged = Acknowledged()
            let daemon = try await daemons.start(Self.options("full", namespace, password: acknowledged.password))
            let filler = namespace.path(daemons.dataDirectory.appendingPathComponent("filler"))
            try await withClient(on: daemons.bus) { client in
                for write in [Write.create, .create, .create, .setLabel] {
                    let error = await Self.attempt(write, client, &acknowledged)
                    #expect(error == nil, "\(write) before the disk filled: \(String(describing: error))")
                }
                #expect(Self.fill(filler) > 0)

                // A large record cannot fit; every kind of write then answers an error or is kept whole.
                let large = await Self.attempt(.createLarge, client, &acknowledged)
                #expect(errorName(large) == .failed, "a 256 KiB item on a full disk: \(String(describing: large))")
                var refused: [Write] = [.createLarge]
                for write in Write.allCases + Array(repeating: .create, count: 200) {
                    if let error = await Self.attempt(write, client, &acknowledged) {
                        #expect(errorName(error) == .failed, "\(write): \(error)")
                        refused.append(write)
                    }
                    if refused.count > 4 && write == .create { break }
                }
                #expect(refused.count > 4, "small writes never failed on a full disk: \(refused)")
                print("disk full: refused \(refused)")
                print("reliability: disk-full-refused-writes=\(refused.count)")
                #expect(FaultCalls.isRunning(daemon.processID), "cofferd died on a full disk:\n\(daemon.log())")
                try await Self.expectIntact(client, acknowledged, "reads on a full disk")

                // Space is back: writes work again without a restart.
                try FileManager.default.removeItem(at: filler)
                for write in Write.allCases {
                    let error = await Self.attempt(write, client, &acknowledged)
                    #expect(error == nil, "\(write) once space is back: \(String(describing: error))")
                }
                try await Self.expectIntact(client, acknowledged, "after space came back")
            }
            await daemons.stop()

            // What was acknowledged is on disk, and every file opens.
            let restarted = try await daemons.start(Self.options("after-full", namespace,
                                                                 password: acknowledged.password))
            try await withClient(on: daemons.bus) { client in
                try await Self.expectIntact(client, acknowledged, "after a restart")
            }
            // Read after calls on the collections, which wait for the start-up unlock and any line it writes.
            #expect(!restarted.log().contains("unavailable"), "log:\n\(restarted.log())")
            await daemons.stop()
        }
    }

    /// Every file in the data directory, by name, as `namespace` sees it.
    static func snapshot(_ directory: URL) -> [String: Data] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return Dictionary(uniqueKeysWithValues: names.compactMap { name in
            FileManager.default.contents(atPath: directory.appendingPathComponent(name).path).map { (name, $0) }
        })
    }

    @Test("a read-only data directory: cofferd starts and serves reads, writes fail with an error and change nothing")
    func readOnlyDataDirectory() async throws {
        // A bind mount of the directory onto itself can be remounted read-only; root ignores file modes, not that.
        let bindMount = { (directory: URL) in
            try await MountNamespace(script: "mkdir -p \"$1\"\nmount --bind \"$1\" \"$1\"", arguments: [directory.path])
        }
        try await Self.withNamespacedDaemons(bindMount) { daemons, namespace in
            var acknowledged = Acknowledged()
            let tools = ClientEnvironment(bus: daemons.bus)
            let directory = daemons.dataDirectory
            _ = try await daemons.start(Self.options("writable", namespace, password: acknowledged.password))
            try await withClient(on: daemons.bus) { client in
                for write in [Write.create, .create, .createLarge, .setLabel] {
                    let error = await Self.attempt(write, client, &acknowledged)
                    #expect(error == nil, "\(write): \(String(describing: error))")
                }
            }
            await daemons.stop()
            let remount = try await namespace.run(["mount", "-o", "remount,bind,ro", directory.path], in: tools)
            try #require(remount.status == 0, "\(remount.stderr)")
            let before = Self.snapshot(namespace.path(directory))

            let daemon = try await daemons.start(Self.options("read-only", namespace, password: acknowledged.password))
            try await withClient(on: daemons.bus) { client in
                try await Self.expectIntact(client, acknowledged, "reads from a read-only directory")
                for write in Write.allCases {
                    let error = await Self.attempt(write, client, &acknowledged)
                    #expect(errorName(error) == .failed, "\(write) on a read-only directory: \(String(describing: error))")
                }
                // Locking and unlocking read the file again; that works read-only too.
                try await client.lock([Self.login])
                #expect(try await client.unlock([Self.login]) == [Self.login])
                try await Self.expectIntact(client, acknowledged, "after writes were refused")
                #expect(FaultCalls.isRunning(daemon.processID), "cofferd died:\n\(daemon.log())")
            }
            #expect(Self.snapshot(namespace.path(directory)) == before, "a file changed on a read-only mount")

            // Writable again: the running daemon accepts writes without a restart.
            let back = try await namespace.run(["mount", "-o", "remount,bind,rw", directory.path], in: tools)
            try #require(back.status == 0, "\(back.stderr)")
            try await withClient(on: daemons.bus) { client in
                for write in Write.allCases {
                    let error = await Self.attempt(write, client, &acknowledged)
                    #expect(error == nil, "\(write) once writable again: \(String(describing: error))")
                }
            }
            await daemons.stop()
            _ = try await daemons.start(Self.options("writable-again", namespace, password: acknowledged.password))
            try await withClient(on: daemons.bus) { client in
                try await Self.expectIntact(client, acknowledged, "after a restart")
            }
            await daemons.stop()
        }
    }
}

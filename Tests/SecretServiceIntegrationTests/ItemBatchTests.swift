// SPDX-License-Identifier: Apache-2.0
// io.coffer.Items.GetItemProperties against a real cofferd: the same answer as GetAll, per caller, and paths that
// name no item left out.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("Batch item properties")
struct ItemBatchTests {
    /// One python program; its identity is the interpreter plus the script's path, so two copies at different paths
    /// are two applications. `store` creates two items and prints their paths; `lock` locks the default collection;
    /// `batch PATH…` calls GetItemProperties with the paths and prints, per path asked, `absent` or its Locked, Label
    /// and whether the answer equals that item's GetAll for the same caller.
    static let program = """
        import sys, secretstorage
        from secretstorage.util import DBusAddressWrapper
        conn = secretstorage.dbus_init()
        role = sys.argv[1]
        if role == 'store':
            col = secretstorage.get_default_collection(conn)
            for name in ('first', 'second'):
                print(col.create_item(name, {'batch': name}, b'secret', replace=True).item_path)
            sys.exit(0)
        if role == 'lock':
            secretstorage.get_default_collection(conn).lock()
            print('locked')
            sys.exit(0)
        paths = sys.argv[2:]
        service = DBusAddressWrapper('/org/freedesktop/secrets', 'io.coffer.Items', conn)
        (answer,) = service.call('GetItemProperties', 'ao', paths)
        print(len(answer))
        for path in paths:
            if path not in answer:
                print(path, 'absent')
                continue
            props = {name: value for name, (_, value) in answer[path].items()}
            item = DBusAddressWrapper(path, 'org.freedesktop.DBus.Properties', conn)
            (each,) = item.call('GetAll', 's', 'org.freedesktop.Secret.Item')
            same = props == {name: value for name, (_, value) in each.items()}
            print(path, 'locked' if props['Locked'] else 'unlocked', repr(props['Label']),
                  'same' if same else 'differs')
        """

    /// Writes `program` to `name/app.py` in the bus directory and returns a runner for it.
    static func application(_ name: String, _ env: ClientEnvironment, program: String = program) throws
        -> @Sendable ([String]) async throws -> [String] {
        let directory = env.bus.directory.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = directory.appendingPathComponent("app.py")
        try Data(program.utf8).write(to: script)
        return { arguments in
            let output = try await env.run("/usr/bin/python3", [script.path] + arguments)
            output.expectSuccess("\(name) \(arguments.first ?? "")")
            return output.text.split(separator: "\n").map(String.init)
        }
    }

    @Test("each item as GetAll answers this caller: another application's item is Locked to it; bad paths left out")
    func perCallerAndBadPaths() async throws {
        try await TestBus.withPrivateBus { bus in
            let daemon = try await DaemonHarness.start(
                on: bus, options: DaemonHarness.SubprocessOptions(arguments: ["--access-control", "ask"]))
            let env = ClientEnvironment(bus: bus)
            let a = try Self.application("a", env)
            let b = try Self.application("b", env)
            let stored = try await a(["store"])
            try #require(stored.count == 2)
            let (first, second) = (stored[0], stored[1])
            let collection = String(first[..<first.lastIndex(of: "/")!])
            let unknown = collection + "/no_such_item"
            let bad = [unknown, collection, "/org/freedesktop/secrets", "/elsewhere/entirely"]

            // The creator: both items readable, labels shown; a path given twice is answered once.
            #expect(try await a(["batch", first, second, first]) == [
                "2", "\(first) unlocked 'first' same", "\(second) unlocked 'second' same",
                "\(first) unlocked 'first' same",
            ])
            // Another application: the same items, Locked to it (access control "ask" shows them, locked).
            #expect(try await b(["batch", first, second]) == [
                "2", "\(first) locked 'first' same", "\(second) locked 'second' same",
            ])
            // Paths naming no item (unknown item, a collection, the service, outside the tree) are left out; the
            // items beside them are still answered.
            #expect(try await a(["batch"] + bad + [second]) == ["1"] + bad.map { "\($0) absent" }
                + ["\(second) unlocked 'second' same"])
            #expect(try await a(["batch"]) == ["0"])

            // A locked collection: every item Locked, with no label, as GetAll says.
            #expect(try await a(["lock"]) == ["locked"])
            #expect(try await a(["batch", first, second]) == [
                "2", "\(first) locked '' same", "\(second) locked '' same",
            ])
            let exit = await daemon.stop()
            #expect(exit == .exited(0), "cofferd \(exit); log:\n\(daemon.log())")
        }
    }

    @Test("under the strict policy another application's items come without label, as GetAll shows them to it")
    func strictHidesLabels() async throws {
        try await TestBus.withPrivateBus { bus in
            let daemon = try await DaemonHarness.start(
                on: bus, options: DaemonHarness.SubprocessOptions(arguments: ["--access-control", "strict"]))
            let env = ClientEnvironment(bus: bus)
            let a = try Self.application("a", env)
            let b = try Self.application("b", env)
            let stored = try await a(["store"])
            try #require(stored.count == 2)
            #expect(try await a(["batch"] + stored) == ["2"] + zip(stored, ["first", "second"]).map {
                "\($0) unlocked '\($1)' same"
            })
            #expect(try await b(["batch"] + stored) == ["2"] + stored.map { "\($0) locked '' same" })
            let exit = await daemon.stop()
            #expect(exit == .exited(0), "cofferd \(exit); log:\n\(daemon.log())")
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// io.coffer.Items.SearchOldestFirst against a real cofferd, called by python secretstorage: creation order, the
// excluded pairs, and the locked list exactly as SearchItems gives it.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("Search in creation order")
struct OldestFirstSearchTests {
    /// `store` creates eleven items (`kind` skip on the fourth), then changes the first one's secret, and prints the
    /// paths in creation order; `search EXCLUDED_KIND` prints SearchOldestFirst's
    /// unlocked paths, `--`, its locked paths; `plain` prints SearchItems' unlocked paths; `lock` locks the default
    /// collection.
    static let program = """
        import sys, secretstorage
        from secretstorage.util import DBusAddressWrapper
        conn = secretstorage.dbus_init()
        role = sys.argv[1]
        service = DBusAddressWrapper('/org/freedesktop/secrets', 'io.coffer.Items', conn)
        if role == 'store':
            col = secretstorage.get_default_collection(conn)
            items = [col.create_item('i%d' % n, {'group': 'g', 'kind': 'skip' if n == 3 else 'keep'}, b's')
                     for n in range(11)]
            items[0].set_secret(b'changed')
            for item in items: print(item.item_path)
        elif role == 'search':
            excluded = {'kind': sys.argv[2]} if len(sys.argv) > 2 else {}
            unlocked, locked = service.call('SearchOldestFirst', 'a{ss}a{ss}', {'group': 'g'}, excluded)
            print('\\n'.join(list(unlocked) + ['--'] + sorted(locked)))
        elif role == 'plain':
            plain = DBusAddressWrapper('/org/freedesktop/secrets', 'org.freedesktop.Secret.Service', conn)
            unlocked, locked = plain.call('SearchItems', 'a{ss}', {'group': 'g'})
            print('\\n'.join(unlocked))
        elif role == 'lock':
            secretstorage.get_default_collection(conn).lock()
            print('locked')
        """

    @Test("readable matches come oldest first by number, less the excluded pairs; others are SearchItems' locked list")
    func orderExclusionAndLocked() async throws {
        try await TestBus.withPrivateBus { bus in
            let daemon = try await DaemonHarness.start(
                on: bus, options: DaemonHarness.SubprocessOptions(arguments: ["--access-control", "ask"]))
            let env = ClientEnvironment(bus: bus)
            let a = try ItemBatchTests.application("a", env, program: Self.program)
            let b = try ItemBatchTests.application("b", env, program: Self.program)
            let created = try await a(["store"])
            try #require(created.count == 11)

            // SearchItems answers newest first; this search answers in creation order, item 10 after 9.
            #expect(Set(try await a(["plain"])) == Set(created))
            #expect(try await a(["plain"]) != created)
            #expect(try await a(["search"]) == created + ["--"])
            #expect(try await a(["search", "skip"]) == created.filter { $0 != created[3] } + ["--"])
            #expect(try await a(["search", "nothing-has-this"]) == created + ["--"])
            // Another application may not read them: all in the locked list, none excluded (it cannot see them).
            #expect(try await b(["search", "skip"]) == ["--"] + created.sorted())
            // A locked collection: nothing readable, every match locked.
            #expect(try await a(["lock"]) == ["locked"])
            #expect(try await a(["search", "skip"]) == ["--"] + created.sorted())
            let exit = await daemon.stop()
            #expect(exit == .exited(0), "cofferd \(exit); log:\n\(daemon.log())")
        }
    }
}

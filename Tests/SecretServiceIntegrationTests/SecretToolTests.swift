// SPDX-License-Identifier: Apache-2.0
// libsecret's secret-tool against cofferd: store, lookup, search, clear.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("secret-tool against cofferd")
struct SecretToolTests {
    @Test("store, lookup, search --all and clear a UTF-8 secret")
    func utf8RoundTrip() async throws {
        try await withCofferd { env, _ in
            let secret = "pässwörd ✓ 🔑"
            try await env.secretTool(["store", "--label=Mail account", "service", "mail", "account", "alice"],
                                     input: Data(secret.utf8)).expectSuccess("store")
            let lookup = try await env.secretTool(["lookup", "service", "mail", "account", "alice"])
            lookup.expectSuccess("lookup")
            #expect(lookup.text == secret)

            let search = try await env.secretTool(["search", "--all", "service", "mail"])
            search.expectSuccess("search")
            let output = search.text + search.stderr
            #expect(output.contains("label = Mail account"))
            #expect(output.contains("secret = \(secret)"))
            #expect(output.contains("attribute.account = alice"))

            try await env.secretTool(["clear", "service", "mail", "account", "alice"]).expectSuccess("clear")
            let gone = try await env.secretTool(["lookup", "service", "mail", "account", "alice"])
            #expect(gone.status != 0 && gone.stdout.isEmpty)
        }
    }

    @Test("binary secrets and a 1 MiB secret come back byte for byte")
    func binaryAndLarge() async throws {
        try await withCofferd { env, _ in
            let binary = Data([0xFF, 0xFE, 0x00, 0x01, 0x80, 0x0A, 0x00, 0xC3])
            try await env.secretTool(["store", "--label=bin", "kind", "binary"], input: binary).expectSuccess("store")
            let back = try await env.secretTool(["lookup", "kind", "binary"])
            back.expectSuccess("lookup")
            #expect(back.stdout == binary)

            // secret-tool reads at most 8 KiB from standard input, so the large secret is stored by
            // secretstorage and read back by secret-tool.
            let store = try await env.python("""
                import secretstorage
                conn = secretstorage.dbus_init()
                col = secretstorage.get_default_collection(conn)
                col.create_item('large', {'kind': 'large'}, bytes((i * 31 + 7) % 94 + 33 for i in range(1 << 20)))
                """)
            store.expectSuccess("store 1 MiB")
            let big = try await env.secretTool(["lookup", "kind", "large"])
            big.expectSuccess("lookup large")
            let expected = Data((0..<(1 << 20)).map { (index: Int) -> UInt8 in UInt8((index * 31 + 7) % 94 + 33) })
            #expect(big.stdout == expected)
        }
    }

    @Test("many attributes are stored and matched exactly, case-sensitively")
    func manyAttributes() async throws {
        try await withCofferd { env, _ in
            var attributes: [String] = []
            for index in 0..<40 { attributes += ["attr\(index)", "value-\(index)"] }
            try await env.secretTool(["store", "--label=many"] + attributes, input: Data("x".utf8))
                .expectSuccess("store")
            let hit = try await env.secretTool(["lookup", "attr7", "value-7", "attr39", "value-39"])
            #expect(hit.text == "x")
            let miss = try await env.secretTool(["lookup", "attr7", "VALUE-7"])
            #expect(miss.status != 0)
            let search = try await env.secretTool(["search", "--all", "attr0", "value-0"])
            #expect((search.text + search.stderr).contains("attribute.attr39 = value-39"))
        }
    }

    @Test("storing again with the same attributes replaces the secret instead of adding an item")
    func storeReplaces() async throws {
        try await withCofferd { env, _ in
            try await env.secretTool(["store", "--label=v1", "service", "s"], input: Data("one".utf8))
                .expectSuccess("store")
            try await env.secretTool(["store", "--label=v2", "service", "s"], input: Data("two".utf8))
                .expectSuccess("store")
            #expect(try await env.secretTool(["lookup", "service", "s"]).text == "two")
            let search = try await env.secretTool(["search", "--all", "service", "s"])
            #expect(search.text.components(separatedBy: "label = ").count == 2, "\(search.text)")
        }
    }
}

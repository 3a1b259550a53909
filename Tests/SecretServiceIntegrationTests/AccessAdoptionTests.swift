// SPDX-License-Identifier: Apache-2.0
// Items nobody owns (older than creators, or imported) become the first user's under ask, with no question.

import DBusWire
import Foundation
import SecretCrypto
import SecretServiceClient
import SecretServiceTestSupport
import Testing

@Suite("Access control: items nobody owns")
struct AccessAdoptionTests {
    /// Stores the `acl=test` item the way `coffer import` does: for no application in particular.
    static func storeUnowned(on bus: TestBus) async throws {
        let client = try await SecretService.connect(address: bus.address)
        let secret = try SecretBytes(copying: Array("the secret of A".utf8))
        _ = try await client.createItem(in: try await client.defaultCollection(), label: "shared item",
                                        attributes: ["acl": "test"], secret: secret, replace: true, unowned: true)
        await client.close()
    }

    @Test("under ask the first program to read an unowned item gets it silently and owns it; listing adopts nothing")
    func firstUseAdopts() async throws {
        try await AccessControlTests.withDaemon(confirms: ["CANCEL"]) { daemon, env in
            try await Self.storeUnowned(on: env.bus)
            let a = try AccessControlTests.application("a", env)
            let b = try AccessControlTests.application("b", env)

            // B only searches: that is no use, so the item stays nobody's.
            #expect(try await b("search") == "1 1")
            // A reads first: no question, and A owns it now.
            #expect(try await a("read") == "secret the secret of A")
            #expect(try await a("read") == "secret the secret of A")
            // B is now asked (and denied here).
            #expect(try await b("read") == "locked")
            #expect(try await b("unlock") == "denied")
            #expect(AccessControlTests.confirmations(daemon) == 1, "\(daemon.pinentryCommands)")

            let log = try await CofferCLI(bus: env.bus).run(["access", "log"])
            #expect(log.status == 0, "\(log.stderr)")
            #expect(log.text.split(separator: "\n").count { $0.contains("adopted") && $0.contains("/a/app.py") } == 1,
                    "\(log.text)")
        }
    }

    @Test("under strict an unowned item needs consent like any other")
    func strictAdoptsNothing() async throws {
        try await AccessControlTests.withDaemon(policy: "strict", confirms: ["CANCEL"]) { _, env in
            try await Self.storeUnowned(on: env.bus)
            let a = try AccessControlTests.application("a", env)
            #expect(try await a("search") == "0 0")
        }
    }

    @Test("cofferd asks by default: with no access-control setting another program's item is locked to a second one")
    func askIsTheDefault() async throws {
        // The harness turns access control off for other suites; this start gives no setting at all.
        try await AccessControlTests.withDaemon(policy: nil, confirms: ["CANCEL"]) { _, env in
            let a = try AccessControlTests.application("a", env)
            let b = try AccessControlTests.application("b", env)
            #expect(try await a("store") == "stored")
            #expect(try await a("read") == "secret the secret of A")
            #expect(try await b("read") == "locked")
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// security(1)'s keychain verbs (collections) through the built coffer, against cofferd and gnome-keyring.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("coffer security(1) keychain verbs")
struct KeychainVerbTests {
    @Test(arguments: Provider.allCases)
    func keychainLifecycle(provider: Provider) async throws {
        try await provider.with { bus, _ in
            let coffer = CofferCLI(bus: bus)
            let list = try await coffer.run(["list-keychains"])
            #expect(list.status == 0, "\(list.stderr)")
            #expect(list.text.contains("    \"/org/freedesktop/secrets/collection/login\""))
            let defaultKeychain = try await coffer.run(["default-keychain"])
            #expect(defaultKeychain.text == "    \"/org/freedesktop/secrets/collection/login\"\n")

            // A new keychain with its password typed twice (here: the first line of stdin).
            let create = try await coffer.run(["create-keychain", "work"], input: "work password\n")
            #expect(create.status == 0, "\(create.stderr)")
            let (_, listed) = try await coffer.json(["list-keychains"])
            let collections = try #require(listed as? [[String: Any]])
            let work = try #require(collections.first { $0["label"] as? String == "work" })
            let workPath = try #require(work["path"] as? String)
            #expect(work["locked"] as? Bool == false)

            // Lock all, then unlock with a wrong password (51) and the right one.
            #expect(try await coffer.run(["lock-keychain", "-a"]).status == 0)
            let (_, lockedList) = try await coffer.json(["list-keychains"])
            let persistent = (lockedList as? [[String: Any]] ?? []).filter { $0["id"] as? String != "session" }
            #expect(!persistent.isEmpty && persistent.allSatisfy { $0["locked"] as? Bool == true })
            let wrong = try await coffer.run(["unlock-keychain", "work"], input: "not it\n")
            #expect(wrong.status == 51)
            #expect(wrong.stderr.split(separator: "\n").count == 1)
            let unlock = try await coffer.run(["unlock-keychain", "work"], input: "work password\n")
            #expect(unlock.status == 0, "\(unlock.stderr)")
            let argv = try await coffer.run(["unlock-keychain", "-p", "work password", workPath])
            #expect(argv.status == 0 && argv.stderr.contains(argvWarning))

            // New password from two stdin lines; the old one stops working.
            let change = try await coffer.run(["set-keychain-password", "work"], input: "work password\nnew password\n")
            #expect(change.status == 0, "\(change.stderr)")
            #expect(try await coffer.run(["lock-keychain", "work"]).status == 0)
            #expect(try await coffer.run(["unlock-keychain", "work"], input: "work password\n").status == 51)
            #expect(try await coffer.run(["unlock-keychain", "work"], input: "new password\n").status == 0)

            // The default alias moves; a store without --collection then lands there.
            #expect(try await coffer.run(["default-keychain", "-s", "work"]).status == 0)
            #expect(try await coffer.run(["default-keychain"]).text == "    \"\(workPath)\"\n")
            #expect(try await coffer.run(["store", "--label", "in work", "place", "work"], input: "w").status == 0)

            // dump-keychain: attributes always, secrets only with consent.
            let dump = try await coffer.run(["dump-keychain", "work"])
            #expect(dump.status == 0 && dump.text.contains("\"place\"=\"work\"") && !dump.text.contains("data:"))
            let refused = try await coffer.run(["dump-keychain", "-d", "work"])
            #expect(refused.status == 64 && refused.text.isEmpty)
            let consented = try await coffer.run(["dump-keychain", "-d", "--yes-print-secrets", "work"])
            #expect(consented.status == 0 && consented.text.contains("data:\nw\n"))

            #expect(try await coffer.run(["delete-keychain", "work"]).status == 0)
            #expect(try await coffer.run(["delete-keychain", "work"]).status == 50)
            #expect(try await coffer.run(["unlock-keychain", "nonexistent"], input: "x\n").status == 50)
            #expect(try await coffer.run(["lock-keychain", "-a", "login"]).status == 64)
        }
    }
}

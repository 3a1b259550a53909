// SPDX-License-Identifier: Apache-2.0
// create-keychain refuses a name that already names a keychain, instead of making a second one with that label.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("coffer create-keychain with an existing name")
struct CreateKeychainTests {
    @Test(arguments: Provider.allCases)
    func existingNamesAreRefused(provider: Provider) async throws {
        try await provider.with { bus, _ in
            let coffer = CofferCLI(bus: bus)
            #expect(try await coffer.run(["create-keychain", "work"], input: "work pw\n").status == 0)
            // The same label, the login collection by id, a security(1)-style file name, a name given twice.
            for arguments in [["work"], ["login"], ["work.keychain-db"], ["twice", "twice"], ["fresh", "work"]] {
                let again = try await coffer.run(["create-keychain"] + arguments, input: "other pw\n")
                #expect(again.status == 48, "\(arguments): \(again.stderr)")
                #expect(again.stderr.split(separator: "\n").count == 1, "\(arguments): \(again.stderr)")
            }
            let labels = try await keychains(coffer).values.compactMap { $0["label"] as? String }
            #expect(labels.filter { $0 == "work" }.count == 1, "\(labels)")
            #expect(!labels.contains("twice") && !labels.contains("fresh"), "\(labels)")
            let createHelp = try await help(["create-keychain"], coffer)
            #expect(createHelp.contains("refused with status 48"))
            let rootHelp = try await help([], coffer)
            #expect(rootHelp.contains("48 a keychain (collection) with that name already exists"))
        }
    }
}

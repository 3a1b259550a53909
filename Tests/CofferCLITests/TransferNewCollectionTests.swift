// SPDX-License-Identifier: Apache-2.0
// import and restore into a collection that does not exist yet: created with a password from stdin, as
// create-keychain takes it, with no provider prompt, so it works headless.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("coffer import and restore create a missing collection headless")
struct TransferNewCollectionTests {
    @Test func restoreAndImportCreateWithAPasswordFromStdin() async throws {
        try await withHeadlessCofferd { bus, harness, coffer in
            #expect(try await coffer.run(["store", "--label=kept", "origin", "backup"], input: "backed up").status == 0)
            let archive = bus.directory.appendingPathComponent("backup.coffer").path
            let export = try await coffer.run(["export", "-o", archive], input: "archive pass\n")
            #expect(export.status == 0, "\(export.stderr)")

            // The archive's passphrase, then the new collection's password.
            let restore = try await coffer.run(["restore", archive, "--collection", "Fresh", "--json"],
                                               input: "archive pass\nfresh password\n")
            try #require(restore.status == 0, "\(restore.stderr)\n\(harness.log())")
            let report = try JSONSerialization.jsonObject(with: restore.stdout) as? [String: Any]
            #expect(report?["imported"] as? Int == 1)
            let fresh = try #require(try await keychains(coffer).values.first { $0["label"] as? String == "Fresh" })
            let freshID = try #require(fresh["id"] as? String)
            #expect(fresh["locked"] as? Bool == false)
            // The password from stdin is the collection's password.
            #expect(try await coffer.run(["lock-keychain", freshID]).status == 0)
            #expect(try await coffer.run(["unlock-keychain", freshID], input: "not it\n").status == 51)
            let unlock = try await coffer.run(["unlock-keychain", freshID], input: "fresh password\n")
            #expect(unlock.status == 0, "\(unlock.stderr)")

            // A plaintext keyring has no password: the first line is the new collection's.
            let plain = bus.directory.appendingPathComponent("plain.keyring")
            try Data("[keyring]\ndisplay-name=P\n\n[1]\ndisplay-name=kept\nsecret=abc\n".utf8).write(to: plain)
            let imported = try await coffer.run(["import", plain.path, "--collection", "Plain"], input: "plain pw\n")
            #expect(imported.status == 0, "\(imported.stderr)")
            let plainID = try #require(try await keychains(coffer).values.first { $0["label"] as? String == "Plain" }?["id"]
                as? String)
            #expect(try await coffer.run(["lock-keychain", plainID]).status == 0)
            #expect(try await coffer.run(["unlock-keychain", plainID], input: "plain pw\n").status == 0)

            // No line left for the new password: nothing is created, one line says why.
            let short = try await coffer.run(["restore", archive, "--collection", "Other"], input: "archive pass\n")
            #expect(short.status == 128 && short.stderr.split(separator: "\n").count == 1, "\(short.stderr)")
            #expect(short.stderr.contains("the password of the new keychain 'Other'"))
            #expect(!(try await keychains(coffer).values.contains { $0["label"] as? String == "Other" }))

            // None of this needed the provider's dialogue.
            #expect(harness.pinentryCommands.isEmpty, "\(harness.pinentryCommands)")
        }
    }
}

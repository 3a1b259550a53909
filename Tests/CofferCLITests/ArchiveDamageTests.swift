// SPDX-License-Identifier: Apache-2.0
// A damaged `coffer export` archive is bad data (65) with a line that says so; only a wrong passphrase is 51.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("coffer restore and import of damaged archives")
struct ArchiveDamageTests {
    @Test func damageIsBadDataAndAWrongPassphraseIsNot() async throws {
        try await withHeadlessCofferd { bus, _, coffer in
            #expect(try await coffer.run(["store", "--label=kept", "origin", "archive"], input: "secret").status == 0)
            let path = bus.directory.appendingPathComponent("backup.coffer")
            let export = try await coffer.run(["export", "-o", path.path], input: "archive pass\n")
            #expect(export.status == 0, "\(export.stderr)")
            let archive = [UInt8](try Data(contentsOf: path))

            var variants: [(name: String, bytes: [UInt8])] = []
            for length in [20, 60, 70, archive.count / 2, archive.count - 40, archive.count - 1] {
                variants.append(("cut to \(length) bytes", Array(archive[..<length])))
            }
            // A bit in the parameters, the salt, the nonce, the length, the ciphertext, the tag, the checksum.
            for offset in [22, 33, 50, 60, 70, archive.count - 40, archive.count - 10] {
                var flipped = archive
                flipped[offset] ^= 0x10
                variants.append(("bit flipped at \(offset)", flipped))
            }
            for (index, variant) in variants.enumerated() {
                let damaged = bus.directory.appendingPathComponent("damaged-\(index).coffer")
                try Data(variant.bytes).write(to: damaged)
                for verb in ["restore", "import"] {
                    let run = try await coffer.run([verb, damaged.path], input: "archive pass\n")
                    #expect(run.status == 65, "\(verb), \(variant.name): \(run.stderr)")
                    #expect(run.stderr.split(separator: "\n").count == 1, "\(verb), \(variant.name): \(run.stderr)")
                    #expect(run.stderr.contains("truncated") || run.stderr.contains("damaged"),
                            "\(verb), \(variant.name): \(run.stderr)")
                }
            }

            for verb in ["restore", "import"] {
                let wrong = try await coffer.run([verb, path.path], input: "wrong pass\n")
                #expect(wrong.status == 51, "\(verb): \(wrong.stderr)")
            }
            let restore = try await coffer.run(["restore", path.path], input: "archive pass\n")
            #expect(restore.status == 0, "\(restore.stderr)")
        }
    }
}

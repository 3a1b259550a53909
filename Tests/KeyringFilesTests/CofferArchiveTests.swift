// SPDX-License-Identifier: Apache-2.0
// Round trips and damage for Coffer's own export archive.

import KeyringFiles
import SecretCrypto
import Testing

@Suite("coffer export archives")
struct CofferArchiveTests {
    static let cheap = Argon2idParameters(iterations: 1, memoryKiB: 64, parallelism: 1)

    static var keyring: ImportedKeyring {
        ImportedKeyring(format: .gnomeKeyringBinary, label: "Work", items: KeyringSamples.items.map {
            ImportedItem(label: $0.label, attributes: $0.attributes, secret: try! SecretBytes(copying: $0.secret),
                         contentType: "application/octet-stream", created: 1_700_000_000, modified: 1_700_000_001)
        })
    }

    @Test("an archive opens with its passphrase to the same items; anything else is a typed error")
    func roundTrip() throws {
        let archive = try CofferArchive.write(Self.keyring, passphrase: secretBytes("pass phrase"), parameters: Self.cheap)
        #expect(KeyringFile.detectFormat(archive) == .cofferArchive)
        let opened = try KeyringFile.parse(archive, password: secretBytes("pass phrase"))
        #expect(opened.format == .cofferArchive && opened.label == "Work")
        KeyringSamples.expectMatches(opened, KeyringSamples.items)
        #expect(opened.items.allSatisfy {
            $0.contentType == "application/octet-stream" && $0.created == 1_700_000_000 && $0.modified == 1_700_000_001
        })
        #expect(thrownError { try KeyringFile.parse(archive, password: secretBytes("wrong")) } as? KeyringFileError
                == .wrongPassword)
        #expect(thrownError { try KeyringFile.parse(archive, password: nil) } as? KeyringFileError == .passwordRequired)
        // The header is authenticated too: any changed byte after the magic is refused.
        for offset in stride(from: 17, to: archive.count, by: 11) {
            var damaged = archive
            damaged[offset] ^= 0x01
            let error = thrownError { try CofferArchive.parse(damaged, passphrase: secretBytes("pass phrase")) }
            #expect(error is KeyringFileError, "byte \(offset)")
        }
        for length in [0, 10, 16, 40, 72, archive.count - 1] {
            let error = thrownError { try CofferArchive.parse(Array(archive[..<length]), passphrase: secretBytes("pass phrase")) }
            #expect(error is KeyringFileError, "prefix \(length)")
        }
        var greedy = archive
        greedy.replaceSubrange(21..<25, with: [0x10, 0, 0, 0])  // 256 GiB of Argon2id memory
        #expect(thrownError { try CofferArchive.parse(greedy, passphrase: secretBytes("pass phrase")) } as? KeyringFileError
                == .limitExceeded("Argon2id memory of 268435456 KiB"))
    }
}

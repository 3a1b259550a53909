// SPDX-License-Identifier: Apache-2.0
// Round trips and damage for Coffer's own export archive.

@testable import KeyringFiles
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
        // A version 1 archive (no checksum) with 256 GiB of Argon2id memory is refused before any derivation.
        var greedy = Self.versionOne(passphrase: "pass phrase")
        greedy.replaceSubrange(21..<25, with: [0x10, 0, 0, 0])
        #expect(thrownError { try CofferArchive.parse(greedy, passphrase: secretBytes("pass phrase")) } as? KeyringFileError
                == .limitExceeded("Argon2id memory of 268435456 KiB"))
    }

    /// Where each region of a version 2 archive starts, and its name.
    static func regions(of archive: [UInt8]) -> [(offset: Int, name: String)] {
        [(17, "Argon2id parameters"), (29, "salt"), (45, "nonce"), (57, "sealed length"), (65, "ciphertext"),
         (archive.count - 48, "GCM tag"), (archive.count - 32, "checksum"), (archive.count - 1, "last byte")]
    }

    @Test("a cut or bit-flipped version 2 archive is damaged, never a wrong passphrase; a wrong passphrase still is")
    func damageIsNotAWrongPassphrase() throws {
        let archive = try CofferArchive.write(Self.keyring, passphrase: secretBytes("pass phrase"), parameters: Self.cheap)
        #expect(archive[16] == 2)
        #expect(thrownError { try CofferArchive.parse(archive, passphrase: secretBytes("wrong")) } as? KeyringFileError
                == .wrongPassword)
        func isDamage(_ error: (any Error)?) -> Bool {
            switch error as? KeyringFileError {
            case .truncated, .malformed, .unsupportedVersion: true
            default: false
            }
        }
        // Cut anywhere after the magic: inside the header, the length, the ciphertext, the tag, the checksum.
        for length in [17, 40, 60, 64, 65, 66, archive.count / 2, archive.count - 48, archive.count - 32, archive.count - 1] {
            let error = thrownError { try CofferArchive.parse(Array(archive[..<length]), passphrase: secretBytes("pass phrase")) }
            #expect(isDamage(error), "cut to \(length): \(String(describing: error))")
        }
        // One flipped bit in every region, with the right and with a wrong passphrase alike.
        for (offset, name) in Self.regions(of: archive) {
            for bit in [0, 7] {
                var damaged = archive
                damaged[offset] ^= 1 << bit
                for passphrase in ["pass phrase", "wrong"] {
                    let error = thrownError { try CofferArchive.parse(damaged, passphrase: secretBytes(passphrase)) }
                    #expect(isDamage(error), "\(name) bit \(bit), \(passphrase): \(String(describing: error))")
                }
            }
        }
        // Bytes appended to a whole archive are damage too.
        #expect(isDamage(thrownError { try CofferArchive.parse(archive + [0], passphrase: secretBytes("pass phrase")) }))
    }

    @Test("version 1 archives (written before the checksum) still open")
    func versionOneStillOpens() throws {
        let archive = Self.versionOne(passphrase: "old phrase")
        let opened = try CofferArchive.parse(archive, passphrase: secretBytes("old phrase"))
        #expect(opened.label == "Work")
        KeyringSamples.expectMatches(opened, KeyringSamples.items)
        #expect(thrownError { try CofferArchive.parse(archive, passphrase: secretBytes("wrong")) } as? KeyringFileError
                == .wrongPassword)
    }

    /// A version 1 archive as the first `coffer export` wrote it: the 57-byte header as associated data, the sealed
    /// payload, nothing after it.
    static func versionOne(passphrase: String) -> [UInt8] {
        let salt = [UInt8](repeating: 7, count: 16)
        let nonce = [UInt8](repeating: 9, count: AES256GCM.nonceByteCount)
        var header = CofferArchive.magic + [1]
        for value in [cheap.iterations, cheap.memoryKiB, cheap.parallelism] {
            header += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        }
        header += salt + nonce
        let key = try! Argon2id.deriveKey(password: secretBytes(passphrase), salt: salt, parameters: cheap,
                                          outputByteCount: AES256GCM.keyByteCount)
        return header + (try! AES256GCM.seal(try! ArchivePayload.encode(keyring), key: key, nonce: nonce,
                                             associatedData: header))
    }
}

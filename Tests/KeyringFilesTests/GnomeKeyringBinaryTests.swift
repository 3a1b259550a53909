// SPDX-License-Identifier: Apache-2.0
// The binary keyring parser against files gnome-keyring itself wrote, and against damaged copies of them.

import Foundation
import KeyringFiles
import SecretCrypto
import SecretServiceTestSupport
import Testing

@Suite("gnome-keyring binary keyring files")
struct GnomeKeyringBinaryTests {
    /// Stores the samples with secret-tool in a headless gnome-keyring and returns its `login.keyring` bytes and
    /// what gnome-keyring serves for those items.
    static func writtenByGnomeKeyring() async throws -> (file: [UInt8], served: [SampleItem]) {
        try await TestBus.withPrivateBus { bus in
            let harness = try await DaemonHarness.startGnomeKeyring(on: bus)
            do {
                let clients = ClientEnvironment(bus: bus)
                for sample in KeyringSamples.items {
                    let stored = try await clients.secretTool(sample.secretToolArguments, input: Data(sample.secret))
                    #expect(stored.status == 0, "\(stored.stderr)\n\(harness.log())")
                }
                let served = try await KeyringSamples.providerItems(address: bus.address)
                let file = try Data(contentsOf: harness.gnomeKeyringDirectory.appendingPathComponent("login.keyring"))
                await harness.stop()
                return ([UInt8](file), served)
            } catch {
                await harness.stop()
                throw error
            }
        }
    }

    @Test("login.keyring written by gnome-keyring parses to the items gnome-keyring serves; damage is always an error")
    func realFile() async throws {
        let (file, served) = try await WrittenKeyrings.binary.value
        #expect(KeyringFile.detectFormat(file) == .gnomeKeyringBinary)
        let password = secretBytes(DaemonHarness.gnomeKeyringPassword)

        // Exactly what secret-tool stored, and exactly what gnome-keyring itself reports for it.
        let keyring = try KeyringFile.parse(file, password: password)
        #expect(keyring.format == .gnomeKeyringBinary)
        #expect(keyring.label == "Login")
        KeyringSamples.expectMatches(keyring, KeyringSamples.items)
        KeyringSamples.expectMatches(keyring, served)
        for item in keyring.items {
            #expect((item.created ?? 0) > 1_600_000_000 && item.modified != nil)
        }

        #expect(thrownError { try KeyringFile.parse(file, password: secretBytes("wrong")) } as? KeyringFileError
                == .wrongPassword)
        #expect(thrownError { try KeyringFile.parse(file, password: nil) } as? KeyringFileError == .passwordRequired)

        // Every truncation is reported, as a truncation (or, shorter than the magic, as an unknown format).
        for length in 0..<file.count {
            let error = thrownError { try GnomeKeyringBinaryFormat.parse(Array(file[..<length]), password: password) }
            switch error as? KeyringFileError {
            case .truncated?, .unrecognizedFormat?: continue
            default: Issue.record("prefix of \(length) bytes gave \(String(describing: error))")
            }
        }

        // A changed byte in the encrypted block fails the MD5 check; one in the clear part gives a typed error or
        // a well-formed keyring, never a crash or another error type.
        let blockStart = file.count - encryptedBlockLength(file)
        for offset in stride(from: blockStart, to: file.count, by: 97) {
            var damaged = file
            damaged[offset] ^= 0x40
            #expect(thrownError { try KeyringFile.parse(damaged, password: password) } as? KeyringFileError
                    == .wrongPassword, "byte \(offset)")
        }
        for offset in 16..<min(blockStart, 600) {
            var damaged = file
            damaged[offset] ^= 0xA5
            let error = thrownError {
                try KeyringFile.parse(damaged, password: password, limits: ParseLimits(maximumItems: 100, maximumKDFIterations: 5000))
            }
            #expect(error == nil || error is KeyringFileError, "byte \(offset): \(String(describing: error))")
        }
    }

    @Test("hostile counts and costs are refused before any work")
    func hostileHeader() throws {
        var file = Array("GnomeKeyring\n\r\0\n".utf8) + [0, 0, 0, 0]
        file += [0xFF, 0xFF, 0xFF, 0xFF]  // NULL label
        file += [UInt8](repeating: 0, count: 16 + 8)  // times, flags, lock timeout
        let iterations = file.count
        file += [0xFF, 0xFF, 0xFF, 0xFF]
        file += [UInt8](repeating: 7, count: 8) + [UInt8](repeating: 0, count: 16)
        file += [0xFF, 0xFF, 0xFF, 0xFF]  // 4 294 967 295 items
        #expect(thrownError { try KeyringFile.parse(file, password: secretBytes("x")) } as? KeyringFileError
                == .limitExceeded("4294967295 key-derivation iterations (at most 1000000)"))
        file.replaceSubrange(iterations..<(iterations + 4), with: [0, 0, 0x03, 0xE8])
        #expect(thrownError { try KeyringFile.parse(file, password: secretBytes("x")) } as? KeyringFileError
                == .limitExceeded("4294967295 items (at most 1000000)"))
        file.replaceSubrange((file.count - 4)..., with: [0, 0, 0, 2])  // two items, but the index ends here
        #expect(thrownError { try KeyringFile.parse(file, password: secretBytes("x")) } as? KeyringFileError
                == .truncated("the item index"))
        file[16] = 2
        #expect(thrownError { try KeyringFile.parse(file, password: nil) } as? KeyringFileError
                == .unsupportedVersion("2.0"))
    }
}

/// The length of the trailing encrypted block: the file ends with it, right after its 4-byte length.
private func encryptedBlockLength(_ file: [UInt8]) -> Int {
    // Scan backwards for the length word that equals the remaining byte count.
    var offset = file.count - 20
    while offset >= 0 {
        let value = Int(file[offset]) << 24 | Int(file[offset + 1]) << 16 | Int(file[offset + 2]) << 8
            | Int(file[offset + 3])
        if value == file.count - offset - 4 { return value }
        offset -= 1
    }
    return 0
}

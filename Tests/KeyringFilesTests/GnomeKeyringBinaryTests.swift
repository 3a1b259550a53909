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
        // gnome-keyring reloads login.keyring when the file changes; items it has read back from the file report the
        // schema of their item type, `xdg:schema=org.freedesktop.Secret.Generic` for secret-tool's, which the
        // parser deliberately does not invent (see GnomeKeyringItemType). Apart from that: the same items.
        let generic = "org.freedesktop.Secret.Generic"
        KeyringSamples.expectMatches(keyring, served.map { item in
            var item = item
            if item.attributes["xdg:schema"] == generic { item.attributes["xdg:schema"] = nil }
            return item
        })
        for item in keyring.items {
            #expect((item.created ?? 0) > 1_600_000_000 && item.modified != nil)
        }

        #expect(thrownError { try KeyringFile.parse(file, password: secretBytes("wrong")) } as? KeyringFileError
                == .wrongPassword)
        #expect(thrownError { try KeyringFile.parse(file, password: nil) } as? KeyringFileError == .passwordRequired)

        // Every truncation is reported, as a truncation (or, shorter than the magic, as an unknown format).
        let truncations = await unexpectedOutcomes(file.count) { length in
            let error = thrownError { try GnomeKeyringBinaryFormat.parse(Array(file[..<length]), password: password) }
            switch error as? KeyringFileError {
            case .truncated?, .unrecognizedFormat?: return nil
            default: return "prefix of \(length) bytes gave \(String(describing: error))"
            }
        }
        #expect(truncations.isEmpty, "\(truncations.prefix(5))")

        // A changed byte in the encrypted block fails the MD5 check; one in the clear part gives a typed error or
        // a well-formed keyring, never a crash or another error type.
        let blockStart = file.count - encryptedBlockLength(file)
        let blockFlips = await unexpectedOutcomes((file.count - blockStart + 96) / 97) { index in
            var damaged = file
            damaged[blockStart + index * 97] ^= 0x40
            let error = thrownError { try KeyringFile.parse(damaged, password: password) }
            return error as? KeyringFileError == .wrongPassword ? nil : "byte \(blockStart + index * 97): \(String(describing: error))"
        }
        #expect(blockFlips.isEmpty, "\(blockFlips.prefix(5))")
        let limits = ParseLimits(maximumItems: 100, maximumKDFIterations: 5000)
        let headerFlips = await unexpectedOutcomes(min(blockStart, 600) - 16) { index in
            var damaged = file
            damaged[16 + index] ^= 0xA5
            let error = thrownError { try KeyringFile.parse(damaged, password: password, limits: limits) }
            return error == nil || error is KeyringFileError ? nil : "byte \(16 + index): \(String(describing: error))"
        }
        #expect(headerFlips.isEmpty, "\(headerFlips.prefix(5))")
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

@Suite("gnome-keyring binary keyring files, hand-built")
struct GnomeKeyringBinaryHandBuiltTests {
    @Test("uint32 attributes, old item types, access lists, NULL strings and an empty password")
    func legacyFeatures() throws {
        var writer = BinaryKeyringWriter()
        writer.label = nil
        writer.items = [
            .init(type: 1, label: "network", secret: Array("pw".utf8),
                  attributes: [("server", .string("example.org")), ("port", .number(8080)), ("empty", .string(nil))],
                  accessList: [(7, "seahorse", "/usr/bin/seahorse"), (1, nil, nil)]),
            .init(type: 0, label: nil, secret: nil, attributes: [("xdg:schema", .string("org.example.Custom"))]),
            .init(type: 0x1_0002, label: "note with flags in the type", secret: [0, 0xFF]),
        ]
        let file = try writer.write(password: "")
        let keyring = try KeyringFile.parse(file, password: try SecretBytes(count: 0))
        #expect(keyring.label == nil && keyring.created == 1_600_000_000 && keyring.modified == 1_600_000_100)
        #expect(keyring.items.count == 3)
        let network = keyring.items[0]
        #expect(network.label == "network" && network.secret?.copyBytes() == Array("pw".utf8))
        #expect(network.attributes == [
            "server": "example.org", "port": "8080", "empty": "", "xdg:schema": "org.gnome.keyring.NetworkPassword",
        ])
        #expect(network.created == 1_600_000_200 && network.modified == 1_600_000_300)
        #expect(keyring.items[1].label == "" && keyring.items[1].secret?.count == 0)
        #expect(keyring.items[1].attributes == ["xdg:schema": "org.example.Custom"])  // an explicit schema wins
        #expect(keyring.items[2].attributes == ["xdg:schema": "org.gnome.keyring.Note"])
        #expect(keyring.items[2].secret?.copyBytes() == [0, 0xFF])

        #expect(thrownError { try KeyringFile.parse(file, password: secretBytes("x")) } as? KeyringFileError
                == .wrongPassword)
    }

    @Test("an unknown attribute type and invalid UTF-8 are reported as corruption")
    func corruptStructures() throws {
        var writer = BinaryKeyringWriter()
        writer.items = [.init(label: "a\u{0}hidden", secret: [1], attributes: [("k", .string("v"))])]
        let file = try writer.write(password: "p")
        #expect(try KeyringFile.parse(file, password: secretBytes("p")).items.first?.label == "a")  // C-string semantics

        var badType = file
        // The hashed index starts after magic, version, label, times, flags, timeout, iterations, salt, reserved
        // words and the item count; the first attribute's type word follows the item id, type, count and name "k".
        let indexStart = 16 + 4 + 4 + "Hand made".utf8.count + 16 + 4 + 4 + 4 + 8 + 16 + 4
        let hashedType = indexStart + 4 + 4 + 4 + 4 + 1
        #expect(Array(badType[hashedType..<(hashedType + 4)]) == [0, 0, 0, 0])
        badType[hashedType + 3] = 9
        #expect(thrownError { try KeyringFile.parse(badType, password: secretBytes("p")) } as? KeyringFileError
                == .malformed("attribute type 9 is neither string (0) nor uint32 (1)"))

        var badLabel = file
        badLabel[16 + 4 + 4] = 0xFF  // first byte of the keyring label
        #expect(thrownError { try KeyringFile.parse(badLabel, password: secretBytes("p")) } as? KeyringFileError
                == .malformed("the keyring label is not valid UTF-8"))
    }
}

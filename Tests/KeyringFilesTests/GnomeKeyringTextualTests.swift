// SPDX-License-Identifier: Apache-2.0
// The textual keyring parser against a file gnome-keyring wrote for a keyring created with an empty password.

import DBusWire
import Foundation
import KeyringFiles
import SecretCrypto
import SecretServiceClient
import SecretServiceTestSupport
import Testing

@Suite("gnome-keyring textual keyring files")
struct GnomeKeyringTextualTests {
    /// Creates "Plain Keyring" with an empty master password through gnome-keyring's internal interface (as
    /// seahorse does), stores the samples in it, and returns the file gnome-keyring wrote for it.
    static func writtenByGnomeKeyring() async throws -> [UInt8] {
        try await TestBus.withPrivateBus { bus in
            let harness = try await DaemonHarness.startGnomeKeyring(on: bus)
            do {
                let create = try await ClientEnvironment(bus: bus).python("""
                    import dbus
                    bus = dbus.SessionBus()
                    obj = bus.get_object('org.freedesktop.secrets', '/org/freedesktop/secrets')
                    service = dbus.Interface(obj, 'org.freedesktop.Secret.Service')
                    _, session = service.OpenSession('plain', dbus.String('', variant_level=1))
                    internal = dbus.Interface(obj, 'org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface')
                    master = dbus.Struct((session, dbus.ByteArray(b''), dbus.ByteArray(b''), 'text/plain'))
                    label = dbus.String('Plain Keyring', variant_level=1)
                    print(internal.CreateWithMasterPassword({'org.freedesktop.Secret.Collection.Label': label}, master))
                    """)
                #expect(create.status == 0, "\(create.stderr)\n\(harness.log())")
                let collection = try #require(ObjectPath(create.text.trimmingCharacters(in: .whitespacesAndNewlines)))
                let client = try await SecretService.connect(address: bus.address)
                for sample in KeyringSamples.items {
                    _ = try await client.createItem(in: collection, label: sample.label, attributes: sample.attributes,
                                                    secret: try SecretBytes(copying: sample.secret), replace: false)
                }
                await client.close()
                let files = try FileManager.default.contentsOfDirectory(
                    at: harness.gnomeKeyringDirectory, includingPropertiesForKeys: nil)
                let plain = files.filter { $0.lastPathComponent.hasPrefix("Plain") }
                #expect(plain.count == 1, "\(files)")
                let bytes = try [UInt8](Data(contentsOf: try #require(plain.first)))
                await harness.stop()
                return bytes
            } catch {
                await harness.stop()
                throw error
            }
        }
    }

    @Test("an empty-password keyring is written as text and parses to the stored items")
    func realFile() async throws {
        let file = try await WrittenKeyrings.textual.value
        #expect(file.starts(with: Array("[keyring]".utf8)))
        #expect(KeyringFile.detectFormat(file) == .gnomeKeyringTextual)
        let keyring = try KeyringFile.parse(file, password: nil)
        #expect(keyring.format == .gnomeKeyringTextual)
        #expect(keyring.label == "Plain Keyring")
        KeyringSamples.expectMatches(keyring, KeyringSamples.items)
        #expect(keyring.items.allSatisfy { ($0.created ?? 0) > 1_600_000_000 })

        // Cut anywhere, the file is either still a (shorter) key file or a clear error; never a crash.
        let cuts = await unexpectedOutcomes((file.count + 6) / 7) { index in
            let error = thrownError { try KeyringFile.parse(Array(file[..<(index * 7)]), password: nil) }
            return error == nil || error is KeyringFileError ? nil : "prefix \(index * 7): \(String(describing: error))"
        }
        #expect(cuts.isEmpty, "\(cuts.prefix(5))")
    }

    @Test("hand-written key files: uint32 attributes, item types, escapes, hex, and malformed lines")
    func handWritten() throws {
        let text = """
            # a comment
            [keyring]
            display-name=Hand\\smade
            ctime=10
            mtime=20
            lock-on-idle=false

            [7]
            item-type=1
            display-name=Net\\tpassword
            secret=pa=ss\\word
            mtime=30
            ctime=40

            [7:attribute0]
            name=port
            type=uint32
            value=8080

            [7:attribute1]
            name=server
            type=string
            value=\\sexample.org

            [8]
            item-type=0
            display-name=binary
            binary-secret=00FFa0

            [9]
            display-name=no secret

            """
        let keyring = try GnomeKeyringTextualFormat.parse(Array(text.utf8))
        #expect(keyring.label == "Hand made" && keyring.created == 10 && keyring.modified == 20)
        let byLabel = Dictionary(uniqueKeysWithValues: keyring.items.map { ($0.label, $0) })
        let network = try #require(byLabel["Net\tpassword"])
        #expect(network.attributes == [
            "port": "8080", "server": " example.org", "xdg:schema": "org.gnome.keyring.NetworkPassword",
        ])
        #expect(network.secret?.copyBytes() == Array("pa=ss\\word".utf8))
        #expect(network.created == 40 && network.modified == 30)
        #expect(byLabel["binary"]?.secret?.copyBytes() == [0x00, 0xFF, 0xA0])
        #expect(byLabel["binary"]?.attributes == [:])
        #expect(byLabel["no secret"]?.secret == nil)

        let bad: [(String, KeyringFileError)] = [
            ("[keyring]\n[1]\nbinary-secret=0g\n", .malformed("a binary secret is not hexadecimal")),
            ("[keyring]\n[1]\nbinary-secret=abc\n", .malformed("a binary secret has an odd hex length")),
            ("[keyring]\njunk line\n", .malformed("line 2 is neither a group, an entry nor a comment")),
            ("[keyring]\ndisplay-name=a\\qb\n", .malformed("[keyring] display-name has an invalid escape sequence")),
            ("[other]\n[keyring]\n", .unrecognizedFormat),
        ]
        for (input, expected) in bad {
            #expect(thrownError { try GnomeKeyringTextualFormat.parse(Array(input.utf8)) } as? KeyringFileError
                    == expected, "\(input)")
        }
        #expect(thrownError { try GnomeKeyringTextualFormat.parse([0x5B, 0xFF, 0x5D]) } as? KeyringFileError
                == .malformed("the text file is not valid UTF-8"))
    }
}

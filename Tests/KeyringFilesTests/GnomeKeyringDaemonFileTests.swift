// SPDX-License-Identifier: Apache-2.0
// The binary parser on files written by a real gnome-keyring-daemon, whole and damaged: what the daemon served is
// what the file gives, and every truncated or bit-flipped copy gives a KeyringFileError, never a crash or a
// different item.

import DBusWire
import Foundation
import KeyringFiles
import SecretCrypto
import SecretServiceClient
import SecretServiceTestSupport
import Testing

@Suite("gnome-keyring's own files", .enabled(if: DaemonHarness.gnomeKeyringInstalled), .timeLimit(.minutes(3)))
struct GnomeKeyringDaemonFileTests {
    struct Item: Hashable {
        var label: String
        var attributes: [String: String]
        var secret: [UInt8]

        /// gnome-keyring stores secret-tool's items with item type 0 and, once it has re-read its file, serves
        /// them with `xdg:schema = org.freedesktop.Secret.Generic`; the parser leaves that attribute out on purpose
        /// (see GnomeKeyringItemType), so it is not compared.
        init(label: String, attributes: [String: String], secret: [UInt8]) {
            self.label = label
            self.attributes = attributes.filter { $0 != ("xdg:schema", "org.freedesktop.Secret.Generic") }
            self.secret = secret
        }

        var withoutSchema: Item {
            Item(label: label, attributes: attributes.filter { $0.key != "xdg:schema" }, secret: secret)
        }
    }

    /// Limits a little above what gnome-keyring writes, so that a flipped bit in the iteration count costs
    /// milliseconds, not seconds.
    static let limits = ParseLimits(maximumItems: 1000, maximumKDFIterations: 1 << 14)

    @Test func realFileParsesToWhatTheDaemonServedAndDamageIsAClearError() async throws {
        let (bytes, served) = try await Self.loginKeyringWithItems()
        let password = try SecretBytes(copying: Array(DaemonHarness.gnomeKeyringPassword.utf8))
        let parsed = try GnomeKeyringBinaryFormat.parse(bytes, password: password, limits: Self.limits)
        let items = Set(parsed.items.map(Self.item))
        #expect(items == served)
        #expect(parsed.label == "Login")

        #expect(throws: KeyringFileError.wrongPassword) {
            try GnomeKeyringBinaryFormat.parse(bytes, password: try SecretBytes(copying: Array("wrong".utf8)),
                                               limits: Self.limits)
        }
        for length in 0..<bytes.count {
            let result = Result { try KeyringFile.parse(Array(bytes[0..<length]), password: password, limits: Self.limits) }
            guard case .failure(let error) = result else {
                Issue.record("a copy cut at \(length) of \(bytes.count) bytes parsed")
                continue
            }
            #expect(error is KeyringFileError, "cut at \(length): \(error)")
        }
        for offset in 0..<bytes.count {
            var flipped = bytes
            flipped[offset] ^= 1 << UInt8(offset % 8)
            switch Result(catching: { try KeyringFile.parse(flipped, password: password, limits: Self.limits) }) {
            case .success(let keyring):
                // Only the clear-text parts may change unnoticed: the keyring's label and times, the hashed
                // index, and the item type kept there, from which xdg:schema is derived (gnome-keyring reads it
                // from the same unauthenticated place). Labels, secrets and stored attributes never.
                #expect(Set(keyring.items.map { Self.item($0).withoutSchema }) == Set(served.map(\.withoutSchema)),
                        "flip at \(offset) changed an item")
            case .failure(let error):
                #expect(error is KeyringFileError, "flip at \(offset): \(error)")
            }
        }
    }

    static func item(_ item: ImportedItem) -> Item {
        Item(label: item.label, attributes: item.attributes, secret: item.secret?.withUnsafeBytes { Array($0) } ?? [])
    }

    /// Starts gnome-keyring on a private bus, stores items with secret-tool, reads back what it serves over D-Bus,
    /// and returns its login.keyring (written before each store is answered) with those items.
    static func loginKeyringWithItems() async throws -> ([UInt8], Set<Item>) {
        try await TestBus.withPrivateBus { bus in
            let keyring = try await DaemonHarness.startGnomeKeyring(on: bus)
            let client = ClientEnvironment(bus: bus)
            let stored: [(String, [String], [UInt8])] = [
                ("plain", ["service", "mail", "user", "alice"], Array("hunter2".utf8)),
                ("Ünïcode ✓", ["app", "tökén"], Array("line\nbreak\u{1}".utf8) + [0xFF, 0x00]),
                ("long", ["n", "1"], Array(repeating: 0x5A, count: 1000)),
            ]
            for (label, attributes, secret) in stored {
                let result = try await client.secretTool(["store", "--label=\(label)"] + attributes, input: Data(secret))
                #expect(result.status == 0, "\(result.stderr)")
            }
            let service = try await SecretService.connect(address: bus.address)
            var served: Set<Item> = []
            do {
                let login = try #require(try await service.readAlias("login"))
                let paths = try await service.collectionProperties(login).items
                let secrets = try await service.secrets(of: paths)
                for path in paths {
                    let properties = try await service.itemProperties(path)
                    served.insert(Item(label: properties.label, attributes: properties.attributes,
                                       secret: try #require(secrets[path]).value.withUnsafeBytes { Array($0) }))
                }
                await service.close()
            } catch {
                await service.close()
                throw error
            }
            await keyring.stop()
            let file = keyring.gnomeKeyringDirectory.appendingPathComponent("login.keyring")
            return (Array(try Data(contentsOf: file)), served)
        }
    }
}

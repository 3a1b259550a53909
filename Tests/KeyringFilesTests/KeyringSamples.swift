// SPDX-License-Identifier: Apache-2.0
// The items every keyring-file test stores through a real program and expects back from the parser.

import Foundation
import KeyringFiles
import SecretCrypto
import SecretServiceClient
import SecretServiceTestSupport
import Testing

/// The real keyring files, each produced once per test run and shared by the suites that read them.
enum WrittenKeyrings {
    static let binary = Task { try await GnomeKeyringBinaryTests.writtenByGnomeKeyring() }
    static let textual = Task { try await GnomeKeyringTextualTests.writtenByGnomeKeyring() }
    static let libsecret = Task { try await LibsecretFileTests.writtenByLibsecret() }
}

/// An item as a test stores it and expects it back.
struct SampleItem: Sendable {
    var label: String
    var attributes: [String: String]
    var secret: [UInt8]

    /// `secret-tool store --label=… name value …`
    var secretToolArguments: [String] {
        ["store", "--label=\(label)"] + attributes.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] }
    }
}

enum KeyringSamples {
    /// Plain text, Unicode everywhere, binary bytes (NUL, 0xFF, invalid UTF-8), a large random secret, many
    /// attributes, and secrets with the characters a key file escapes.
    static let items: [SampleItem] = [
        SampleItem(label: "Plain item", attributes: ["service": "myapp", "account": "alice"],
                   secret: Array("hunter2".utf8)),
        SampleItem(label: "Ünïcødé ключ 🔑", attributes: ["service": "zürich-日本", "user": "ñandú"],
                   secret: Array("пароль🔐".utf8)),
        SampleItem(label: "binary secret", attributes: ["kind": "binary"],
                   secret: [0x00, 0x01, 0xFF, 0xFE, 0x0A, 0x00, 0x80, 0xC3]),
        SampleItem(label: "large secret", attributes: ["kind": "large"],
                   secret: (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }),
        SampleItem(label: "many attributes",
                   attributes: Dictionary(uniqueKeysWithValues: (0..<40).map {
                       (String(format: "attr%02d", $0), "value \($0) = \\s [x]")
                   }),
                   secret: Array("many".utf8)),
        SampleItem(label: "escapes = [x] \\n", attributes: ["kind": "escapes", "path": " C:\\dir\\new "],
                   secret: Array(" C:\\dir\\new\\s = x ".utf8)),
    ]

    /// Checks that `keyring` holds exactly `expected` (matched by label).
    static func expectMatches(_ keyring: ImportedKeyring, _ expected: [SampleItem],
                              sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(keyring.items.count == expected.count, sourceLocation: sourceLocation)
        for sample in expected {
            let found = keyring.items.filter { $0.label == sample.label }
            #expect(found.count == 1, "item '\(sample.label)'", sourceLocation: sourceLocation)
            guard let item = found.first else { continue }
            #expect(item.attributes == sample.attributes, "item '\(sample.label)'", sourceLocation: sourceLocation)
            #expect(item.secret?.copyBytes() == sample.secret, "item '\(sample.label)'", sourceLocation: sourceLocation)
        }
    }

    /// What a provider serves: every item's label, attributes and secret, read with our client.
    static func providerItems(address: String) async throws -> [SampleItem] {
        let client = try await SecretService.connect(address: address)
        do {
            let (unlocked, locked) = try await client.searchItems([:])
            #expect(locked.isEmpty)
            var items: [SampleItem] = []
            for path in unlocked {
                let properties = try await client.itemProperties(path)
                let secret = try await client.secret(of: path)
                items.append(SampleItem(label: properties.label, attributes: properties.attributes,
                                        secret: secret.value.copyBytes()))
            }
            await client.close()
            return items
        } catch {
            await client.close()
            throw error
        }
    }
}

/// A password in secure memory.
func secretBytes(_ text: String) -> SecretBytes { try! SecretBytes(copying: Array(text.utf8)) }

/// The error `body` throws, or `nil` when it returns.
func thrownError<T>(_ body: () throws -> T) -> (any Error)? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

// SPDX-License-Identifier: Apache-2.0
// Our client against the cofferd executable on a private bus: sessions, item round trips, bulk reads.

import DBusWire
import SecretCrypto
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

@Suite("Client against cofferd: items and secrets", .timeLimit(.minutes(2)))
struct ClientTests {
    @Test("a session of each algorithm round-trips a secret", arguments: SessionAlgorithm.allCases)
    func sessionRoundTrip(algorithm: SessionAlgorithm) async throws {
        try await DaemonHarness.withDaemon(algorithm: algorithm) { _, _, client in
            #expect(client.session.algorithm == algorithm)
            let collection = try await client.defaultCollection()
            let item = try await client.createItem(
                in: collection, label: "round trip", attributes: ["test": "session"], secret: secret("hunter2"),
                replace: false)
            let read = try await client.secret(of: item)
            #expect(read.text == "hunter2")
            #expect(read.contentType == "text/plain")
        }
    }

    @Test("create, search, read, change and delete an item through the default alias")
    func itemLifecycleThroughDefaultAlias() async throws {
        try await DaemonHarness.withDaemon { _, _, client in
            _ = try await client.defaultCollection()  // creates the collection if the provider has none yet
            let collection = try #require(try await client.collection(alias: "default"))
            #expect(collection == SecretObjectPath.alias("default").objectPath)

            let attributes = ["service": "example.org", "username": "alice"]
            let item = try await client.createItem(
                in: collection, label: "Password for alice", attributes: attributes, secret: secret("s3cret"),
                replace: true)
            let found = try await client.searchItems(["service": "example.org"])
            #expect(found.unlocked == [item])
            #expect(found.locked.isEmpty)
            #expect(try await client.searchItems(["service": "EXAMPLE.org"]).unlocked.isEmpty)

            var properties = try await client.itemProperties(item)
            #expect(properties.label == "Password for alice")
            #expect(properties.attributes == attributes)
            #expect(properties.locked == false)
            #expect(properties.created > 0 && properties.modified >= properties.created)

            try await client.setSecret(of: item, to: secret("n3w"))
            #expect(try await client.secret(of: item).text == "n3w")

            try await client.setLabel(of: item, to: "Renamed")
            try await client.setAttributes(of: item, to: ["service": "example.com", "username": "alice"])
            properties = try await client.itemProperties(item)
            #expect(properties.label == "Renamed")
            #expect(properties.attributes["service"] == "example.com")
            #expect(try await client.searchItems(["service": "example.org"]).unlocked.isEmpty)
            #expect(try await client.searchItems(["service": "example.com"]).unlocked == [item])

            // The collection's own SearchItems sees it through the alias path too.
            #expect(try await client.collectionProxy(collection).searchItems(["username": "alice"]) == [item])

            try await client.deleteItem(item)
            #expect(try await client.searchItems(["username": "alice"]).unlocked.isEmpty)
            let error = await #expect(throws: SecretServiceError.self) { try await client.secret(of: item) }
            #expect(errorName(error) == SecretErrorNames.noSuchObject)
        }
    }

    @Test("replace=true replaces the item with the same attributes")
    func createItemReplaces() async throws {
        try await DaemonHarness.withDaemon { _, _, client in
            let collection = try await client.defaultCollection()
            let attributes = ["app": "replace-test"]
            _ = try await client.createItem(in: collection, label: "first", attributes: attributes,
                                            secret: secret("one"), replace: true)
            let second = try await client.createItem(in: collection, label: "second", attributes: attributes,
                                                     secret: secret("two"), replace: true)
            let found = try await client.searchItems(attributes)
            #expect(found.unlocked == [second])
            #expect(try await client.secret(of: second).text == "two")
        }
    }

    @Test("GetSecrets of more secret bytes than the secure-memory pool holds: each secret is sent on and released in turn")
    func getSecretsBeyondThePool() async throws {
        try await DaemonHarness.withDaemon { _, _, client in
            let collection = try await client.defaultCollection()
            // 48 secrets of 24 KiB are 1.1 MiB together, more than cofferd's 1 MiB pool; each alone is far below the
            // size that gets locked pages of its own, so each is read into the pool.
            var expected: [ObjectPath: [UInt8]] = [:]
            for index in 0..<48 {
                let bytes = (0..<24 * 1024).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
                let item = try await client.createItem(
                    in: collection, label: "pool \(index)", attributes: ["pool": "yes", "index": "\(index)"],
                    secret: try SecretBytes(copying: bytes), contentType: "application/octet-stream", replace: false)
                expected[item] = bytes
            }
            let read = try await client.secrets(of: Array(expected.keys)) { $0.value.copyBytes() }
            #expect(read == expected)
        }
    }

    @Test("GetSecrets returns several items' secrets in one call")
    func getSecretsOfSeveralItems() async throws {
        try await DaemonHarness.withDaemon { _, _, client in
            let collection = try await client.defaultCollection()
            var expected: [ObjectPath: String] = [:]
            for index in 0..<3 {
                let item = try await client.createItem(
                    in: collection, label: "bulk \(index)", attributes: ["bulk": "yes", "index": "\(index)"],
                    secret: secret("value-\(index)"), replace: false)
                expected[item] = "value-\(index)"
            }
            let secrets = try await client.secrets(of: Array(expected.keys))
            #expect(secrets.count == 3)
            for (item, value) in expected {
                #expect(secrets[item]?.text == value)
                #expect(secrets[item]?.contentType == "text/plain")
            }
        }
    }

    @Test("a 1 MiB secret round-trips", arguments: SessionAlgorithm.allCases)
    func largeSecret(algorithm: SessionAlgorithm) async throws {
        try await DaemonHarness.withDaemon(algorithm: algorithm) { _, _, client in
            var bytes = [UInt8](repeating: 0, count: 1 << 20)
            var state: UInt32 = 0x1234_5678
            for index in bytes.indices {  // xorshift: cheap, deterministic, incompressible enough
                state ^= state << 13
                state ^= state >> 17
                state ^= state << 5
                bytes[index] = UInt8(truncatingIfNeeded: state)
            }
            let item = try await client.createItem(
                in: try await client.defaultCollection(), label: "big", attributes: ["size": "1MiB"],
                secret: try SecretBytes(copying: bytes), contentType: "application/octet-stream", replace: false)
            let read = try await client.secret(of: item)
            #expect(read.value.count == bytes.count)
            #expect(read.bytes == bytes)
        }
    }

    @Test("binary (non-UTF-8) and empty secrets round-trip with their content type", arguments: SessionAlgorithm.allCases)
    func binarySecret(algorithm: SessionAlgorithm) async throws {
        try await DaemonHarness.withDaemon(algorithm: algorithm) { _, _, client in
            let collection = try await client.defaultCollection()
            let binary: [UInt8] = [0x00, 0xFF, 0xC3, 0x28, 0xA0, 0xA1, 0x80] + Array(0...255)
            let item = try await client.createItem(
                in: collection, label: "binary", attributes: ["kind": "binary"], secret: try SecretBytes(copying: binary),
                contentType: "application/octet-stream", replace: false)
            var read = try await client.secret(of: item)
            #expect(read.bytes == binary)
            #expect(read.contentType == "application/octet-stream")

            try await client.setSecret(of: item, to: try SecretBytes(copying: []), contentType: "text/plain; charset=utf8")
            read = try await client.secret(of: item)
            #expect(read.bytes.isEmpty)
            #expect(read.contentType == "text/plain; charset=utf8")
            #expect(try await client.secrets(of: [item])[item]?.contentType == "text/plain; charset=utf8")
        }
    }

    @Test("without a provider on the bus, connecting reports noProvider")
    func noProvider() async throws {
        _ = try await TestBus.withPrivateBus { bus in
            await #expect(throws: SecretServiceClientError.noProvider) {
                _ = try await SecretService.connect(address: bus.address)
            }
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Collections and aliases through our client: create, alias, rename, delete, and property errors.

import DBusWire
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

@Suite("Client against cofferd: collections and aliases", .timeLimit(.minutes(2)))
struct CollectionTests {
    @Test("CreateCollection with an alias, then ReadAlias, SetAlias, rename and delete")
    func collectionWithAlias() async throws {
        try await DaemonHarness.withDaemon { _, _, client in
            let work = try await client.createCollection(label: "Work", alias: "work")
            #expect(work != .root)
            #expect(try await client.collections().contains(work))
            #expect(try await client.readAlias("work") == work)
            #expect(try await client.collection(alias: "work") == SecretObjectPath.alias("work").objectPath)
            #expect(try await client.collectionProperties(work).label == "Work")
            #expect(try await client.collectionProperties(work).items.isEmpty)

            // An existing alias returns the existing collection.
            #expect(try await client.createCollection(label: "Work again", alias: "work") == work)

            try await client.setAlias("other", to: work)
            #expect(try await client.readAlias("other") == work)
            try await client.setAlias("other", to: nil)
            #expect(try await client.readAlias("other") == nil)
            #expect(try await client.collection(alias: "other") == nil)

            try await client.setLabel(ofCollection: work, to: "Office")
            #expect(try await client.collectionProxy(work).label() == "Office")
            #expect(try await client.collectionProxy(SecretObjectPath.alias("work").objectPath).label() == "Office")

            let item = try await client.createItem(in: work, label: "vpn", attributes: ["vpn": "yes"],
                                                   secret: secret("pw"), replace: false)
            #expect(try await client.collectionProperties(work).items == [item])

            try await client.deleteCollection(work)
            #expect(try await !client.collections().contains(work))
            #expect(try await client.readAlias("work") == nil)
            #expect(try await client.searchItems(["vpn": "yes"]).unlocked.isEmpty)
        }
    }

    @Test("ReadAlias of an unknown alias is /, and the missing alias path is NoSuchObject")
    func unknownAlias() async throws {
        try await DaemonHarness.withDaemon { (_, _, client) async throws in
            #expect(try await client.service.readAlias("nonexistent") == .root)
            #expect(try await client.readAlias("nonexistent") == nil)
            let error = await #expect(throws: SecretServiceError.self) {
                _ = try await client.collectionProxy(SecretObjectPath.alias("nonexistent").objectPath).label()
            }
            #expect(errorName(error) == SecretErrorNames.noSuchObject)
        }
    }

    @Test("defaultCollection creates 'Default keyring' when the default alias is unset")
    func defaultCollectionIsCreated() async throws {
        try await DaemonHarness.withDaemon { _, _, client in
            try await client.setAlias(SecretServiceNames.defaultAlias, to: nil)
            let created = try await client.defaultCollection()
            #expect(created != SecretObjectPath.alias("default").objectPath)
            #expect(try await client.readAlias("default") == created)
            #expect(try await client.collectionProperties(created).label == "Default keyring")
            // Now it exists, the alias path is returned.
            #expect(try await client.defaultCollection() == SecretObjectPath.alias("default").objectPath)
        }
    }

    @Test("Properties: Get, GetAll, Set, and errors for read-only and unknown properties")
    func propertyAccess() async throws {
        try await DaemonHarness.withDaemon { _, _, client in
            let collection = try await client.defaultCollection()
            let properties = client.collectionProxy(collection).properties
            let all = try await properties.getAll(SecretServiceNames.collectionInterface)
            #expect(Set(all.keys) == ["Items", "Label", "Locked", "Created", "Modified"])
            #expect(try await properties.get(SecretServiceNames.collectionInterface, "Label") == all["Label"])

            try await properties.set(SecretServiceNames.collectionInterface, "Label", to: .string("Relabelled"))
            #expect(try await client.collectionProxy(collection).label() == "Relabelled")

            let readOnly = await #expect(throws: SecretServiceError.self) {
                try await properties.set(SecretServiceNames.collectionInterface, "Locked", to: .boolean(false))
            }
            #expect(errorName(readOnly) == .propertyReadOnly)
            let unknown = await #expect(throws: SecretServiceError.self) {
                _ = try await properties.get(SecretServiceNames.collectionInterface, "Colour")
            }
            #expect(errorName(unknown) == .unknownProperty)

            let service = try await client.service.properties.getAll(SecretServiceNames.serviceInterface)
            #expect(service["Collections"]?.arrayElements?.isEmpty == false)
            #expect(try await client.collections().contains(try await defaultCollectionPath(client)))
        }
    }
}

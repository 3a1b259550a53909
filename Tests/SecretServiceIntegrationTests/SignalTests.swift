// SPDX-License-Identifier: Apache-2.0
// The provider's signals as our client sees them: subscribe first, then act, then wait (never sleep).

import DBusWire
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

@Suite("Client against cofferd: signals", .timeLimit(.minutes(2)))
struct SignalTests {
    private static let collectionInterface = SecretServiceNames.collectionInterface
    private static let serviceInterface = SecretServiceNames.serviceInterface

    @Test("ItemCreated, ItemChanged and ItemDeleted, on the canonical and the alias path")
    func itemSignals() async throws {
        try await DaemonHarness.withDaemon { _, _, client in
            let canonical = try await defaultCollectionPath(client)
            let alias = SecretObjectPath.alias("default").objectPath
            let signals = try await client.subscribe(to: [
                SignalFilter(path: canonical, interface: Self.collectionInterface),
                SignalFilter(path: alias, interface: Self.collectionInterface),
            ])

            let item = try await client.createItem(in: alias, label: "signalled", attributes: ["sig": "1"],
                                                   secret: secret("x"), replace: false)
            let createdCanonical = try await nextSignal(signals, "ItemCreated on \(canonical)") {
                $0.member == "ItemCreated" && $0.path == canonical && firstArgument(of: $0, is: item)
            }
            #expect(createdCanonical.signature == "o")
            _ = try await nextSignal(signals, "ItemCreated on \(alias)") {
                $0.member == "ItemCreated" && $0.path == alias && firstArgument(of: $0, is: item)
            }

            try await client.setLabel(of: item, to: "changed")
            _ = try await nextSignal(signals, "ItemChanged") {
                $0.member == "ItemChanged" && $0.path == canonical && firstArgument(of: $0, is: item)
            }

            try await client.deleteItem(item)
            _ = try await nextSignal(signals, "ItemDeleted") {
                $0.member == "ItemDeleted" && $0.path == canonical && firstArgument(of: $0, is: item)
            }
        }
    }

    @Test("PropertiesChanged for an item's Label and Attributes, and for a collection's Locked")
    func propertiesChanged() async throws {
        try await DaemonHarness.withDaemon { _, _, client in
            let collection = try await defaultCollectionPath(client)
            let item = try await client.createItem(in: collection, label: "before", attributes: ["p": "1"],
                                                   secret: secret("x"), replace: false)
            let signals = try await client.subscribe(to: [.propertiesChanged(item), .propertiesChanged(collection)])

            try await client.setLabel(of: item, to: "after")
            let label = try await nextSignal(signals, "PropertiesChanged(Label)") {
                $0.path == item && changedProperties($0)["Label"] != nil
            }
            #expect(label.body.first?.string == SecretServiceNames.itemInterface.rawValue)
            #expect(changedProperties(label)["Label"] == .string("after"))

            try await client.setAttributes(of: item, to: ["p": "2"])
            let attributes = try await nextSignal(signals, "PropertiesChanged(Attributes)") {
                $0.path == item && changedProperties($0)["Attributes"] != nil
            }
            #expect(changedProperties(attributes)["Attributes"] == .stringDictionary(["p": "2"]))

            try await client.lock([collection])
            let locked = try await nextSignal(signals, "PropertiesChanged(Locked) on the collection") {
                $0.path == collection && changedProperties($0)["Locked"] != nil
            }
            #expect(changedProperties(locked)["Locked"] == .boolean(true))
        }
    }

    @Test("CollectionCreated, CollectionChanged, CollectionDeleted and PropertiesChanged(Collections)")
    func collectionSignals() async throws {
        try await DaemonHarness.withDaemon { _, _, client in
            let service = SecretServiceNames.servicePath
            let signals = try await client.subscribe(to: [
                SignalFilter(path: service, interface: Self.serviceInterface),
                .propertiesChanged(service),
            ])

            let created = try await client.createCollection(label: "Signals", alias: "")
            _ = try await nextSignal(signals, "CollectionCreated") {
                $0.member == "CollectionCreated" && firstArgument(of: $0, is: created)
            }
            let list = try await nextSignal(signals, "PropertiesChanged(Collections)") {
                $0.member == "PropertiesChanged" && changedProperties($0)["Collections"] != nil
            }
            #expect(changedProperties(list)["Collections"]?.arrayElements?.contains(.objectPath(created)) == true)

            try await client.setLabel(ofCollection: created, to: "Renamed")
            _ = try await nextSignal(signals, "CollectionChanged") {
                $0.member == "CollectionChanged" && firstArgument(of: $0, is: created)
            }

            try await client.deleteCollection(created)
            _ = try await nextSignal(signals, "CollectionDeleted") {
                $0.member == "CollectionDeleted" && firstArgument(of: $0, is: created)
            }
        }
    }
}

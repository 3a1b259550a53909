// SPDX-License-Identifier: Apache-2.0
// Service, collection and item semantics through the router: search, aliases, properties, signals.

import DBusWire
import SecretServiceDaemon
import SecretServiceProtocol
import Testing

@Suite("Service semantics")
struct ServiceSemanticsTests {
    func createItem(_ h: RouterHarness, _ session: ObjectPath, label: String, attributes: [String: String],
                    secret: String, replace: Bool = false, at collection: ObjectPath = defaultAlias)
        async throws -> ObjectPath {
        let body = try await h.ok(collection, SecretServiceNames.collectionInterface, "CreateItem", [
            .variantDictionary([SecretPropertyKeys.itemLabel: .string(label),
                                SecretPropertyKeys.itemAttributes: .stringDictionary(attributes)]),
            plainSecret(session, secret), .boolean(replace),
        ])
        #expect(body[1] == .objectPath(.root))
        return try #require(body[0].objectPath)
    }

    @Test("items made through the alias live at canonical paths and are reachable through both")
    func aliasRouting() async throws {
        let h = try await RouterHarness()
        let session = try await h.plainSession()
        let item = try await createItem(h, session, label: "L", attributes: ["a": "1"], secret: "pw")
        #expect(SecretObjectPath(item) == .item(collection: "session", item: "1"))
        let viaAlias = SecretObjectPath.aliasItem(alias: "default", item: "1").objectPath
        let secret = try #require(WireSecret(try await h.ok(viaAlias, nil, "GetSecret", [.objectPath(session)])[0]))
        #expect(secret.value == Array("pw".utf8) && secret.session == session && secret.contentType == "text/plain")
        let label = try await h.ok(defaultAlias, SecretServiceNames.propertiesInterface, "Get",
                                   [.string("org.freedesktop.Secret.Collection"), .string("Label")])
        #expect(label == [.variant(.string("Session"))])
        #expect(await h.errorName("/org/freedesktop/secrets/aliases/nope", SecretServiceNames.propertiesInterface,
                                  "Get", [.string("org.freedesktop.Secret.Collection"), .string("Label")])
            == "org.freedesktop.Secret.Error.NoSuchObject")
    }

    @Test("SearchItems splits locked from unlocked, newest first; GetSecrets skips locked items")
    func searchAndSecrets() async throws {
        let h = try await RouterHarness()
        let session = try await h.plainSession()
        let older = try await createItem(h, session, label: "a", attributes: ["app": "x"], secret: "1")
        let newer = try await createItem(h, session, label: "b", attributes: ["app": "x"], secret: "2")
        _ = try await h.ok(service, nil, "CreateCollection",
                           [.variantDictionary([SecretPropertyKeys.collectionLabel: .string("Work")]), .string("")])
        let work: ObjectPath = "/org/freedesktop/secrets/collection/Work"
        let locked = try await createItem(h, session, label: "c", attributes: ["app": "x"], secret: "3", at: work)
        _ = try await h.ok(service, nil, "Lock", [.objectPaths([work])])

        let found = try await h.ok(service, nil, "SearchItems", [.stringDictionary(["app": "x"])])
        #expect(Set(found[0].arrayElements ?? []) == [.objectPath(older), .objectPath(newer)])
        #expect(found[1] == .objectPaths([locked]))

        let secrets = try await h.ok(service, nil, "GetSecrets",
                                     [.objectPaths([older, locked, newer, "/org/freedesktop/secrets/collection/x/1"]),
                                      .objectPath(session)])
        let entries = try #require(secrets[0].dictionaryEntries)
        #expect(Set(entries.map(\.key)) == [.objectPath(older), .objectPath(newer)])
        #expect(await h.errorName(locked, nil, "GetSecret", [.objectPath(session)])
            == "org.freedesktop.Secret.Error.IsLocked")
        #expect(await h.errorName(work, nil, "CreateItem", [
            .variantDictionary([:]), plainSecret(session, "x"), .boolean(false),
        ]) == "org.freedesktop.Secret.Error.IsLocked")
        let inCollection = try await h.ok(defaultAlias, nil, "SearchItems", [.stringDictionary(["app": "x"])])
        #expect(inCollection == [.objectPaths([newer, older])] || inCollection == [.objectPaths([older, newer])])
    }

    @Test("CreateItem with replace updates the matching item in place")
    func replace() async throws {
        let h = try await RouterHarness()
        let session = try await h.plainSession()
        let first = try await createItem(h, session, label: "a", attributes: ["s": "1"], secret: "one", replace: true)
        let second = try await createItem(h, session, label: "b", attributes: ["s": "1"], secret: "two", replace: true)
        #expect(first == second)
        let secret = try #require(WireSecret(try await h.ok(first, nil, "GetSecret", [.objectPath(session)])[0]))
        #expect(secret.value == Array("two".utf8))
    }

    @Test("aliases: ReadAlias, SetAlias, removal, and a missing default alias is NoSuchObject")
    func aliases() async throws {
        let h = try await RouterHarness()
        #expect(try await h.ok(service, nil, "ReadAlias", [.string("nothing")]) == [.objectPath(.root)])
        let created = try await h.ok(service, nil, "CreateCollection", [
            .variantDictionary([SecretPropertyKeys.collectionLabel: .string("Other")]), .string("other"),
        ])
        let other = try #require(created[0].objectPath)
        let again = try await h.ok(service, nil, "CreateCollection", [.variantDictionary([:]), .string("other")])
        #expect(again[0] == .objectPath(other))
        _ = try await h.ok(service, nil, "SetAlias", [.string("default"), .objectPath(other)])
        #expect(try await h.ok(service, nil, "ReadAlias", [.string("default")]) == [.objectPath(other)])
        _ = try await h.ok(service, nil, "SetAlias", [.string("default"), .objectPath(.root)])
        #expect(await h.errorName(defaultAlias, nil, "CreateItem", [
            .variantDictionary([:]), plainSecret(try await h.plainSession(), "x"), .boolean(true),
        ]) == "org.freedesktop.Secret.Error.NoSuchObject")
        #expect(await h.errorName(service, nil, "SetAlias", [.string("default"), .objectPath("/org/x")])
            == "org.freedesktop.Secret.Error.NoSuchObject")
        #expect(await h.errorName(service, nil, "SetAlias", [.string("a b"), .objectPath(other)])
            == "org.freedesktop.DBus.Error.InvalidArgs")
    }

    @Test("properties: Get, GetAll, Set with access and type checks")
    func properties() async throws {
        let h = try await RouterHarness()
        let session = try await h.plainSession()
        let item = try await createItem(h, session, label: "L", attributes: ["a": "1"], secret: "x")
        let props = SecretServiceNames.propertiesInterface
        let all = try await h.ok(item, props, "GetAll", [.string("org.freedesktop.Secret.Item")])
        let map = try #require(all[0].variantDictionary)
        #expect(Set(map.keys) == ["Locked", "Attributes", "Label", "Created", "Modified"])
        #expect(map["Attributes"] == .stringDictionary(["a": "1"]) && map["Locked"] == .boolean(false))
        _ = try await h.ok(item, props, "Set", [.string("org.freedesktop.Secret.Item"), .string("Label"),
                                                .variant(.string("New"))])
        _ = try await h.ok(item, props, "Set", [.string("org.freedesktop.Secret.Item"), .string("Attributes"),
                                                .variant(.stringDictionary(["b": "2"]))])
        let after = try await h.ok(item, props, "GetAll", [.string("")])
        #expect(after[0].variantDictionary?["Label"] == .string("New"))
        #expect(after[0].variantDictionary?["Attributes"] == .stringDictionary(["b": "2"]))
        #expect(await h.errorName(item, props, "Set", [.string("org.freedesktop.Secret.Item"), .string("Locked"),
                                                       .variant(.boolean(true))])
            == "org.freedesktop.DBus.Error.PropertyReadOnly")
        #expect(await h.errorName(item, props, "Set", [.string("org.freedesktop.Secret.Item"), .string("Label"),
                                                       .variant(.int32(1))])
            == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(await h.errorName(item, props, "Get", [.string("org.freedesktop.Secret.Item"), .string("Nope")])
            == "org.freedesktop.DBus.Error.UnknownProperty")
        #expect(await h.errorName(item, props, "GetAll", [.string("org.example.Nope")])
            == "org.freedesktop.DBus.Error.InvalidArgs")
        let collections = try await h.ok(service, props, "Get", [.string("org.freedesktop.Secret.Service"),
                                                                  .string("Collections")])
        #expect(collections == [.variant(.objectPaths(["/org/freedesktop/secrets/collection/session"]))])
    }

    @Test("changes are announced as spec signals and PropertiesChanged")
    func signals() async throws {
        let h = try await RouterHarness()
        let publisher = Task { await h.router.publishChanges() }
        defer { publisher.cancel() }
        let session = try await h.plainSession()
        let item = try await createItem(h, session, label: "L", attributes: [:], secret: "x")
        let collection: ObjectPath = "/org/freedesktop/secrets/collection/session"
        await h.sender.waitForMessage { $0.member == "PropertiesChanged" && $0.path == collection }
        _ = try await h.ok(item, SecretServiceNames.propertiesInterface, "Set",
                           [.string("org.freedesktop.Secret.Item"), .string("Label"), .variant(.string("M"))])
        await h.sender.waitForMessage { $0.member == "PropertiesChanged" && $0.path == item }
        _ = try await h.ok(item, nil, "Delete")
        // ItemCreated, ItemChanged and ItemDeleted go out on the canonical path and each alias path.
        await h.sender.waitForMessage { $0.member == "ItemDeleted" && $0.path == defaultAlias }
        let created = await h.signals("ItemCreated")
        #expect(created.contains { $0.path == collection && $0.body == [.objectPath(item)] })
        #expect(created.contains { $0.path == defaultAlias })
        #expect(await h.signals("ItemChanged").contains { $0.body == [.objectPath(item)] })
        #expect(await h.signals("ItemDeleted").contains { $0.path == collection })
        let changed = await h.signals("PropertiesChanged")
        #expect(changed.contains {
            $0.path == item && $0.body.first == .string("org.freedesktop.Secret.Item")
                && $0.body[1].variantDictionary?["Label"] == .string("M")
        })
        #expect(changed.contains {
            $0.path == collection && $0.body[1].variantDictionary?["Items"] != nil
        })
    }
}

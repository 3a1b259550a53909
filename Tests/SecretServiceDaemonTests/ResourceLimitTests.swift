// SPDX-License-Identifier: Apache-2.0
// Resource limits: sessions and prompts per client and in all, call size, items, collections and secret bytes.

import DBusWire
import SecretServiceDaemon
import SecretServiceProtocol
import SecretStore
import Testing

@Suite("Resource limits")
struct ResourceLimitTests {
    static let limitsExceeded = "org.freedesktop.DBus.Error.LimitsExceeded"
    static let third = BusName(unchecked: ":1.12")

    static func small(items: Int = 100_000, collections: Int = 1024, totalSecretBytes: Int = 256 << 20)
        -> ItemLimits {
        var limits = ItemLimits.default
        limits.maximumItemsPerCollection = items
        limits.maximumCollections = collections
        limits.maximumTotalSecretBytes = totalSecretBytes
        return limits
    }

    func createItem(_ h: RouterHarness, _ session: ObjectPath, _ secret: String, label: String,
                    replace: Bool = false) async -> Message {
        await h.call(defaultAlias, nil, "CreateItem", [
            .variantDictionary([SecretPropertyKeys.itemLabel: .string(label)]),
            plainSecret(session, secret), .boolean(replace),
        ])
    }

    @Test("many clients each at their session cap meet the daemon-wide cap; a client at its own cap still rotates")
    func sessionsInAll() async throws {
        let h = try await RouterHarness(clientLimits: ClientLimits(
            maximumSessionsPerClient: 4, maximumPromptsPerClient: 2, maximumSessions: 10, maximumPrompts: 3))
        for _ in 0..<4 { _ = try await h.plainSession(for: RouterHarness.first) }
        for _ in 0..<4 { _ = try await h.plainSession(for: RouterHarness.second) }
        for _ in 0..<2 { _ = try await h.plainSession(for: Self.third) }
        #expect(await h.errorName(service, nil, "OpenSession", [.string("plain"), .variant(.string(""))],
                                  from: Self.third) == Self.limitsExceeded)
        // A client at its own cap replaces its least recently used session, so the total does not grow.
        for _ in 0..<20 { _ = try await h.plainSession(for: RouterHarness.first) }
        await h.router.clientVanished(RouterHarness.second)
        for _ in 0..<2 { _ = try await h.plainSession(for: Self.third) }
    }

    @Test("pending prompts are capped per client and in all, with LimitsExceeded")
    func prompts() async throws {
        let h = try await RouterHarness(clientLimits: ClientLimits(
            maximumSessionsPerClient: 4, maximumPromptsPerClient: 2, maximumSessions: 10, maximumPrompts: 3))
        _ = try await h.ok(service, nil, "Lock", [.objectPaths([defaultAlias])])
        func unlock(_ caller: BusName) async -> Message {
            await h.call(service, nil, "Unlock", [.objectPaths([defaultAlias])], from: caller)
        }
        for _ in 0..<2 { #expect(await unlock(RouterHarness.first).kind == .methodReturn) }
        #expect(await unlock(RouterHarness.first).errorName?.rawValue == Self.limitsExceeded)
        #expect(await unlock(RouterHarness.second).kind == .methodReturn)
        #expect(await unlock(RouterHarness.second).errorName?.rawValue == Self.limitsExceeded)
        await h.router.clientVanished(RouterHarness.first)
        #expect(await unlock(RouterHarness.second).kind == .methodReturn)
    }

    @Test("a client that left before its calls registered anything keeps no session or prompt; the caps stay free")
    func callsOfDepartedClients() async throws {
        let h = try await RouterHarness(clientLimits: ClientLimits(
            maximumSessionsPerClient: 4, maximumPromptsPerClient: 2, maximumSessions: 10, maximumPrompts: 3))
        _ = try await h.ok(service, nil, "Lock", [.objectPaths([defaultAlias])])
        // The order the daemon can meet: the client's departure is handled before its calls, already received,
        // register what they make. More rounds than either cap holds.
        for round in 0..<12 {
            let departed = BusName(unchecked: ":2.\(round)")
            await h.bus.leave(departed)
            await h.router.clientVanished(departed)
            _ = await h.call(service, nil, "OpenSession", [.string("plain"), .variant(.string(""))], from: departed)
            _ = await h.call(service, nil, "Unlock", [.objectPaths([defaultAlias])], from: departed)
        }
        let body = try await h.ok(service, SecretServiceNames.introspectableInterface, "Introspect")
        let children = try IntrospectionSummary.parse(try #require(body.first?.string)).children
        #expect(children == ["aliases", "collection"], "sessions or prompts of departed clients remain")
        _ = try await h.plainSession()
        let unlock = await h.call(service, nil, "Unlock", [.objectPaths([defaultAlias])])
        #expect(unlock.kind == .methodReturn, "\(unlock.error.map(String.init(describing:)) ?? "")")
    }

    @Test("a call whose arguments exceed the per-call cap is refused before it runs")
    func callSize() async throws {
        let h = try await RouterHarness(clientLimits: ClientLimits(
            maximumSessionsPerClient: 4, maximumPromptsPerClient: 2, maximumCallBytes: 4096))
        let big = String(repeating: "x", count: 5000)
        #expect(await h.errorName(service, nil, "SearchItems", [.stringDictionary(["k": big])]) == Self.limitsExceeded)
        #expect(await h.errorName(service, nil, "ReadAlias", [.string(big)]) == Self.limitsExceeded)
        let nested = DBusValue.array(.variant, Array(repeating: .variant(.bytes([UInt8](repeating: 1, count: 100))),
                                                     count: 50))
        #expect(await h.errorName(service, nil, "OpenSession", [.string("plain"), .variant(nested)])
            == Self.limitsExceeded)
        _ = try await h.ok(service, nil, "SearchItems", [.stringDictionary(["k": "small"])])
        #expect(ClientLimits.default.maximumCallBytes > ItemLimits.default.maximumSecretBytes
            + ItemLimits.default.maximumAttributeCount
            * (ItemLimits.default.maximumAttributeNameBytes + ItemLimits.default.maximumAttributeValueBytes + 16)
            + ItemLimits.default.maximumLabelBytes + 1024, "the largest valid CreateItem fits in one call")
    }

    @Test("a collection holds at most its item cap; replacing and deleting still work at the cap")
    func itemsPerCollection() async throws {
        let h = try await RouterHarness(itemLimits: Self.small(items: 3))
        let session = try await h.plainSession()
        var items: [ObjectPath] = []
        for index in 0..<3 {
            let reply = await createItem(h, session, "s\(index)", label: "item \(index)")
            items.append(try #require(reply.body.first?.objectPath))
        }
        #expect(await createItem(h, session, "s", label: "one too many").errorName?.rawValue == Self.limitsExceeded)
        _ = try await h.ok(items[0], nil, "SetSecret", [plainSecret(session, "changed")])
        _ = try await h.ok(items[1], nil, "Delete")
        #expect(await createItem(h, session, "s", label: "fits again").kind == .methodReturn)
        #expect(try await h.store.itemIDs(in: "session").count == 3)
    }

    @Test("the store's secrets in all stay under the total; shrinking a secret makes room")
    func totalSecretBytes() async throws {
        let h = try await RouterHarness(itemLimits: Self.small(totalSecretBytes: 200))
        let session = try await h.plainSession()
        let hundred = String(repeating: "a", count: 100)
        let first = try #require(await createItem(h, session, hundred, label: "first").body.first?.objectPath)
        #expect(await createItem(h, session, hundred, label: "second").errorName?.rawValue == Self.limitsExceeded)
        #expect(await h.errorName(first, nil, "SetSecret", [plainSecret(session, hundred + hundred + "a")])
            == Self.limitsExceeded)
        _ = try await h.ok(first, nil, "SetSecret", [plainSecret(session, "short")])
        #expect(await createItem(h, session, hundred, label: "second").kind == .methodReturn)
        let value = try #require(WireSecret(try await h.ok(first, nil, "GetSecret", [.objectPath(session)])[0]))
        #expect(value.value == Array("short".utf8), "a refused write leaves the stored secret as it was")
    }

    @Test("the store holds at most its collection cap")
    func collections() async throws {
        let h = try await RouterHarness(itemLimits: Self.small(collections: 3))
        func create(_ label: String) async -> Message {
            await h.call(service, nil, "CreateCollection",
                         [.variantDictionary([SecretPropertyKeys.collectionLabel: .string(label)]), .string("")])
        }
        #expect(await create("two").kind == .methodReturn)
        #expect(await create("three").kind == .methodReturn)
        #expect(await create("four").errorName?.rawValue == Self.limitsExceeded)
        #expect(await h.store.collectionIDs().count == 3)
    }
}

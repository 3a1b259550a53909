// SPDX-License-Identifier: Apache-2.0
// Dispatch rules: unknown objects, members and interfaces, signature checks, sessions and their owners.

import DBusWire
import SecretCrypto
import SecretServiceDaemon
import SecretServiceProtocol
import Testing

@Suite("Router dispatch")
struct RouterDispatchTests {
    @Test("unknown paths, members and interfaces get the right error names")
    func unknowns() async throws {
        let h = try await RouterHarness()
        #expect(await h.errorName("/org/freedesktop/secrets/collection/nope", nil, "Delete")
            == "org.freedesktop.Secret.Error.NoSuchObject")
        #expect(await h.errorName("/org/freedesktop/secrets/bogus/x", nil, "Introspect")
            == "org.freedesktop.Secret.Error.NoSuchObject")
        #expect(await h.errorName(service, SecretServiceNames.serviceInterface, "Frobnicate")
            == "org.freedesktop.DBus.Error.UnknownMethod")
        #expect(await h.errorName(service, "org.example.Nope", "ReadAlias", [.string("x")])
            == "org.freedesktop.DBus.Error.UnknownMethod")
        #expect(await h.errorName(service, SecretServiceNames.collectionInterface, "Delete")
            == "org.freedesktop.DBus.Error.UnknownMethod")
    }

    @Test("a wrong argument signature is InvalidArgs and the router keeps answering")
    func signatures() async throws {
        let h = try await RouterHarness()
        #expect(await h.errorName(service, SecretServiceNames.serviceInterface, "ReadAlias", [.int32(3)])
            == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(await h.errorName(service, SecretServiceNames.serviceInterface, "ReadAlias")
            == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(await h.errorName(service, nil, "SearchItems", [.stringDictionary([:]), .string("extra")])
            == "org.freedesktop.DBus.Error.InvalidArgs")
        let body = try await h.ok(service, nil, "ReadAlias", [.string("default")])
        #expect(body == [.objectPath("/org/freedesktop/secrets/collection/session")])
    }

    @Test("session algorithms: plain, DH with a real key exchange, unknown and malformed input")
    func sessions() async throws {
        let h = try await RouterHarness()
        let plain = try await h.plainSession()
        #expect(SecretObjectPath(plain) == .session("1"))
        #expect(await h.errorName(service, nil, "OpenSession", [.string("rot13"), .variant(.string(""))])
            == "org.freedesktop.DBus.Error.NotSupported")
        #expect(await h.errorName(service, nil, "OpenSession", [.string("plain"), .variant(.int32(0))])
            == "org.freedesktop.DBus.Error.InvalidArgs")
        for bad: [UInt8] in [[], [0], [1], [UInt8](repeating: 0xFF, count: 128), [UInt8](repeating: 1, count: 129)] {
            #expect(await h.errorName(service, nil, "OpenSession",
                                      [.string(SecretServiceNames.dhAlgorithm), .variant(.bytes(bad))])
                == "org.freedesktop.DBus.Error.InvalidArgs")
        }
        let client = try DHKeyPair()
        let body = try await h.ok(service, nil, "OpenSession",
                                  [.string(SecretServiceNames.dhAlgorithm), .variant(.bytes(client.publicKey))])
        let serverKey = try #require(body[0].variantValue?.bytes)
        let dhPath = try #require(body[1].objectPath)
        let cipher = try DHSessionCipher(keyPair: client, peerPublicKey: serverKey)

        let (iv, ciphertext) = try cipher.encrypt(try SecretBytes(copying: Array("hunter2".utf8)))
        let wire = WireSecret(session: dhPath, parameters: iv, value: ciphertext, contentType: "text/plain")
        let created = try await h.ok(defaultAlias, SecretServiceNames.collectionInterface, "CreateItem", [
            .variantDictionary([SecretPropertyKeys.itemLabel: .string("L")]), wire.dbusValue, .boolean(false),
        ])
        let item = try #require(created[0].objectPath)
        let got = try #require(WireSecret(try await h.ok(item, nil, "GetSecret", [.objectPath(dhPath)])[0]))
        #expect(got.session == dhPath && got.parameters.count == 16 && got.parameters != iv)
        #expect(try cipher.decrypt(iv: got.parameters, ciphertext: got.value).copyBytes() == Array("hunter2".utf8))

        var tampered = wire
        tampered.parameters = [1, 2, 3]
        #expect(await h.errorName(item, nil, "SetSecret", [tampered.dbusValue])
            == "org.freedesktop.DBus.Error.InvalidArgs")
        tampered = wire
        tampered.value = Array(ciphertext.dropLast())
        #expect(await h.errorName(item, nil, "SetSecret", [tampered.dbusValue])
            == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(await h.errorName(plain, nil, "Close") == nil)
        #expect(await h.errorName(plain, nil, "Close") == "org.freedesktop.Secret.Error.NoSuchObject")
    }

    @Test("sessions belong to their caller; others get NoSession, and they die with the caller")
    func sessionOwnership() async throws {
        let h = try await RouterHarness()
        let session = try await h.plainSession()
        let created = try await h.ok(defaultAlias, nil, "CreateItem", [
            .variantDictionary([:]), plainSecret(session, "x"), .boolean(false),
        ])
        let item = try #require(created[0].objectPath)
        #expect(await h.errorName(item, nil, "GetSecret", [.objectPath(session)], from: RouterHarness.second)
            == "org.freedesktop.Secret.Error.NoSession")
        #expect(await h.errorName(session, nil, "Close", from: RouterHarness.second)
            == "org.freedesktop.Secret.Error.NoSuchObject")
        #expect(await h.errorName(item, nil, "GetSecret", [.objectPath("/org/freedesktop/secrets/collection/session")])
            == "org.freedesktop.Secret.Error.NoSession")
        await h.router.clientVanished(RouterHarness.first)
        #expect(await h.errorName(item, nil, "GetSecret", [.objectPath(session)])
            == "org.freedesktop.Secret.Error.NoSession")
    }

    @Test("a client looping on OpenSession holds at most the cap; the least recently used session goes first")
    func sessionLimit() async throws {
        let h = try await RouterHarness()
        let first = try await h.plainSession()
        let second = try await h.plainSession()
        for _ in 0..<(ClientLimits.default.maximumSessionsPerClient - 2) { _ = try await h.plainSession() }
        // Using the first session makes the second the least recently used.
        _ = try await h.ok(defaultAlias, nil, "CreateItem", [.variantDictionary([:]), plainSecret(first, "x"),
                                                             .boolean(false)])
        let newest = try await h.plainSession()
        #expect(await h.errorName(second, nil, "Close") == "org.freedesktop.Secret.Error.NoSuchObject")
        #expect(await h.errorName(first, nil, "Close") == nil)
        #expect(await h.errorName(newest, nil, "Close") == nil)
        for _ in 0..<10 { _ = try await h.plainSession() }
        let children = try await h.ok("/org/freedesktop/secrets/session", SecretServiceNames.introspectableInterface,
                                      "Introspect")
        let count = children.first?.string?.ranges(of: "<node name=").count ?? 0
        #expect(count == ClientLimits.default.maximumSessionsPerClient)
        _ = try await h.plainSession(for: RouterHarness.second)
    }
}

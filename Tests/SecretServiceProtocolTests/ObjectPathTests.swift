// SPDX-License-Identifier: Apache-2.0
// Round trips and rejections of the Secret Service path codec.

import DBusWire
import SecretServiceProtocol
import Testing

@Suite("Secret Service object paths")
struct ObjectPathTests {
    static let objects: [SecretObjectPath] = [
        .service, .session("1"), .collection("login"), .item(collection: "login", item: "42"), .alias("default"),
        .aliasItem(alias: "default", item: "7"), .prompt("3"), .collection("Default_keyring"),
    ]

    @Test("every object's path parses back to the same object", arguments: objects)
    func roundTrip(_ object: SecretObjectPath) {
        #expect(SecretObjectPath(object.objectPath) == object)
    }

    @Test("paths are the ones every provider uses")
    func spellings() {
        #expect(SecretObjectPath.collection("login").objectPath == "/org/freedesktop/secrets/collection/login")
        #expect(SecretObjectPath.item(collection: "login", item: "1").objectPath
            == "/org/freedesktop/secrets/collection/login/1")
        #expect(SecretObjectPath.alias("default").objectPath == "/org/freedesktop/secrets/aliases/default")
        #expect(SecretObjectPath.session("2").objectPath == "/org/freedesktop/secrets/session/2")
    }

    @Test("paths outside the tree or of unknown shape are rejected", arguments: [
        "/", "/org/freedesktop", "/org/freedesktop/secretsx", "/org/freedesktop/secrets/collection",
        "/org/freedesktop/secrets/bogus/x", "/org/freedesktop/secrets/collection/a/b/c",
        "/org/freedesktop/secrets/session/1/2", "/org/freedesktop/secrets/prompt", "/org/freedesktop/Secrets",
        "/org/freedesktop/secretsx/collection/login", "/org/freedesktop/secrets/collections/login",
        "/org/freedesktop/secrets/aliases/default/1/2", "/org/freedesktop/secrets/promp/1", "/org/freedesktop/secrets/x",
    ])
    func rejects(_ text: String) throws {
        #expect(SecretObjectPath(try #require(ObjectPath(text))) == nil)
    }

    @Test("identifiers derived from labels are path elements")
    func derivedIdentifiers() {
        #expect(ObjectPathElement.derive(from: "Default keyring", fallback: "c") == "Default_keyring")
        #expect(ObjectPathElement.derive(from: "  ", fallback: "c") == "c")
        #expect(ObjectPathElement.derive(from: "Clés / perso", fallback: "c") == "Cl_s_perso")
        #expect(ObjectPathElement.isValid(ObjectPathElement.derive(from: "ä€😀", fallback: "c")))
    }
}

@Suite("Error table")
struct ErrorTableTests {
    @Test("each error maps to its D-Bus name and back")
    func mapping() {
        let cases: [(SecretServiceError, String)] = [
            (.isLocked("m"), "org.freedesktop.Secret.Error.IsLocked"),
            (.noSession("m"), "org.freedesktop.Secret.Error.NoSession"),
            (.noSuchObject("m"), "org.freedesktop.Secret.Error.NoSuchObject"),
            (.denied("m"), "org.gnome.keyring.Error.Denied"),
            (.invalidArgs("m"), "org.freedesktop.DBus.Error.InvalidArgs"),
            (.notSupported("m"), "org.freedesktop.DBus.Error.NotSupported"),
            (.limitsExceeded("m"), "org.freedesktop.DBus.Error.LimitsExceeded"),
            (.propertyReadOnly("m"), "org.freedesktop.DBus.Error.PropertyReadOnly"),
        ]
        for (error, name) in cases {
            #expect(error.dbusError.name.rawValue == name)
            #expect(error.dbusError.message == "m")
            #expect(SecretServiceError(error.dbusError) == error)
        }
    }

    @Test("limits reject oversized input with LimitsExceeded")
    func limits() {
        let limits = ItemLimits.default
        #expect(throws: SecretServiceError.self) { try limits.check(label: String(repeating: "x", count: 5000)) }
        #expect(throws: SecretServiceError.self) {
            try limits.check(attributes: Dictionary(uniqueKeysWithValues: (0..<65).map { ("k\($0)", "v") }))
        }
        #expect(throws: SecretServiceError.self) { try limits.check(attributes: ["": "v"]) }
        #expect(throws: SecretServiceError.self) {
            try limits.check(secretByteCount: (4 << 20) + 1, contentType: "text/plain")
        }
        #expect(throws: Never.self) { try limits.check(attributes: ["service": "s"]) }
    }
}

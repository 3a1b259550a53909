// SPDX-License-Identifier: Apache-2.0
// The well-behaved client the fuzz run interleaves with hostile calls; it checks every result it gets.

import DBusTransport
import DBusWire
import SecretCrypto
import SecretServiceProtocol

/// Valid traffic with known answers: it creates, finds, reads, rewrites, renames and deletes items of its own in
/// the `session` collection, over a DH session and a plain one, and compares every reply with what it wrote.
/// Hostile calls never target this collection (see ``FuzzPaths``), so any difference is the daemon's fault.
actor FuzzValidClient {
    struct Mismatch: Error, CustomStringConvertible {
        let description: String
    }

    static let collection: ObjectPath = "/org/freedesktop/secrets/collection/session"
    static let service: ObjectPath = "/org/freedesktop/secrets"

    private let connection: Connection
    private let dhSession: ObjectPath
    private let cipher: DHSessionCipher
    private let plainSession: ObjectPath
    /// What this client expects to find: item path → (number, secret).
    private var live: [(path: ObjectPath, number: Int, secret: [UInt8])] = []
    private var counter = 0
    private(set) var steps = 0

    private init(connection: Connection, dhSession: ObjectPath, cipher: DHSessionCipher, plainSession: ObjectPath) {
        self.connection = connection
        self.dhSession = dhSession
        self.cipher = cipher
        self.plainSession = plainSession
    }

    static func connect(_ connection: Connection) async throws -> FuzzValidClient {
        let keys = try DHKeyPair()
        let dh = try await call(connection, service, FuzzMembers.service, "OpenSession",
                                [.string("dh-ietf1024-sha256-aes128-cbc-pkcs7"), .variant(.bytes(keys.publicKey))])
        guard let serverKey = dh.first?.variantValue?.bytes, let dhPath = dh.last?.objectPath else {
            throw Mismatch(description: "OpenSession (DH) answered \(dh)")
        }
        let plain = try await call(connection, service, FuzzMembers.service, "OpenSession",
                                   [.string("plain"), .variant(.string(""))])
        guard let plainPath = plain.last?.objectPath else { throw Mismatch(description: "OpenSession answered \(plain)") }
        return FuzzValidClient(connection: connection, dhSession: dhPath,
                               cipher: try DHSessionCipher(keyPair: keys, peerPublicKey: serverKey),
                               plainSession: plainPath)
    }

    /// The paths this client owns, for the introspection coverage check.
    var sessionPath: ObjectPath { dhSession }
    var itemPaths: [ObjectPath] { live.map(\.path) }

    /// One checked operation; the kind rotates so every kind runs often.
    func step() async throws {
        steps += 1
        switch steps % 6 {
        case 0 where live.count > 8: try await deleteOldest()
        case 1, 0: try await create()
        case 2: try await search()
        case 3: try await read()
        case 4: try await rewrite()
        default: try await checkAll()
        }
    }

    private func create() async throws {
        counter += 1
        let secret = Array("valid secret \(counter) ✓".utf8)
        let properties = DBusValue.variantDictionary([
            "org.freedesktop.Secret.Item.Label": .string("valid \(counter)"),
            "org.freedesktop.Secret.Item.Attributes": .stringDictionary(["fuzz-valid": "\(counter)"]),
        ])
        let reply = try await call(Self.collection, FuzzMembers.collection, "CreateItem",
                                   [properties, try wire(secret, dh: counter.isMultiple(of: 2)), .boolean(false)])
        guard reply.count == 2, let path = reply[0].objectPath, reply[1].objectPath == "/" else {
            throw Mismatch(description: "CreateItem answered \(reply)")
        }
        live.append((path, counter, secret))
    }

    private func search() async throws {
        guard let entry = live.randomElement() else { return try await create() }
        let reply = try await call(Self.service, FuzzMembers.service, "SearchItems",
                                   [.stringDictionary(["fuzz-valid": "\(entry.number)"])])
        guard reply.first?.arrayElements == [.objectPath(entry.path)], reply.last?.arrayElements == [] else {
            throw Mismatch(description: "SearchItems for item \(entry.number) answered \(reply)")
        }
        let label = try await call(entry.path, FuzzMembers.propertiesInterface, "Get",
                                   [.string(FuzzMembers.item), .string("Label")])
        guard label.first?.variantValue?.string == "valid \(entry.number)" else {
            throw Mismatch(description: "Label of item \(entry.number) is \(label)")
        }
    }

    private func read() async throws {
        guard let entry = live.randomElement() else { return try await create() }
        let dh = entry.number % 3 != 0
        let reply = try await call(entry.path, FuzzMembers.item, "GetSecret", [.objectPath(dh ? dhSession : plainSession)])
        guard let got = reply.first.flatMap(WireSecret.init), try plaintext(got, dh: dh) == entry.secret else {
            throw Mismatch(description: "GetSecret of item \(entry.number) did not return its secret")
        }
    }

    private func rewrite() async throws {
        guard let index = live.indices.randomElement() else { return try await create() }
        counter += 1
        let secret = Array("rewritten \(counter)".utf8)
        _ = try await call(live[index].path, FuzzMembers.item, "SetSecret", [try wire(secret, dh: counter % 3 != 0)])
        live[index].secret = secret
    }

    private func deleteOldest() async throws {
        let entry = live.removeFirst()
        let reply = try await call(entry.path, FuzzMembers.item, "Delete")
        guard reply == [.objectPath("/")] else { throw Mismatch(description: "Delete answered \(reply)") }
        let search = try await call(Self.service, FuzzMembers.service, "SearchItems",
                                    [.stringDictionary(["fuzz-valid": "\(entry.number)"])])
        guard search.first?.arrayElements == [] else {
            throw Mismatch(description: "deleted item \(entry.number) is still found")
        }
    }

    /// Reads every live item at once through `GetSecrets` and compares all of them.
    func checkAll() async throws {
        let reply = try await call(Self.service, FuzzMembers.service, "GetSecrets",
                                   [.objectPaths(live.map(\.path)), .objectPath(dhSession)])
        let entries = reply.first?.dictionaryEntries ?? []
        guard entries.count == live.count else {
            throw Mismatch(description: "GetSecrets returned \(entries.count) of \(live.count) items")
        }
        for entry in live {
            guard let found = entries.first(where: { $0.key == .objectPath(entry.path) }),
                  let secret = WireSecret(found.value), try plaintext(secret, dh: true) == entry.secret
            else { throw Mismatch(description: "GetSecrets lost or changed item \(entry.number)") }
        }
    }

    // MARK: - Helpers

    private func wire(_ secret: [UInt8], dh: Bool) throws -> DBusValue {
        guard dh else {
            return WireSecret(session: plainSession, parameters: [], value: secret, contentType: "text/plain").dbusValue
        }
        let (iv, value) = try cipher.encrypt(try SecretBytes(copying: secret))
        return WireSecret(session: dhSession, parameters: iv, value: value, contentType: "text/plain").dbusValue
    }

    private func plaintext(_ secret: WireSecret, dh: Bool) throws -> [UInt8] {
        dh ? try cipher.decrypt(iv: secret.parameters, ciphertext: secret.value).copyBytes() : secret.value
    }

    private func call(_ path: ObjectPath, _ interface: String, _ member: String, _ body: [DBusValue] = [])
        async throws -> [DBusValue] {
        try await Self.call(connection, path, interface, member, body)
    }

    static func call(_ connection: Connection, _ path: ObjectPath, _ interface: String, _ member: String,
                     _ body: [DBusValue] = []) async throws -> [DBusValue] {
        let message = Message.methodCall(destination: "org.freedesktop.secrets", path: path,
                                         interface: InterfaceName(unchecked: interface),
                                         member: MemberName(unchecked: member), body: body)
        return try await connection.call(message, timeout: .seconds(60)).body
    }
}

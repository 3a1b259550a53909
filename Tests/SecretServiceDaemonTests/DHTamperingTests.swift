// SPDX-License-Identifier: Apache-2.0
// DH sessions under hostile input: bad peer keys, and tampered, badly padded or wrongly sized secrets.

import DBusWire
import SecretCrypto
import SecretServiceDaemon
import SecretServiceProtocol
import SecretStore
import Testing

@Suite("DH tampering")
struct DHTamperingTests {
    static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"

    /// A DH session of the first client, with the client's side of the cipher.
    func dhSession(_ h: RouterHarness) async throws -> (ObjectPath, DHSessionCipher) {
        let client = try DHKeyPair()
        let body = try await h.ok(service, nil, "OpenSession",
                                  [.string(SecretServiceNames.dhAlgorithm), .variant(.bytes(client.publicKey))])
        let serverKey = try #require(body[0].variantValue?.bytes)
        return (try #require(body[1].objectPath), try DHSessionCipher(keyPair: client, peerPublicKey: serverKey))
    }

    @Test("degenerate, out-of-range and oversized peer keys are InvalidArgs and open no session")
    func peerKeys() async throws {
        let h = try await RouterHarness()
        let hex = "ffffffffffffffffc90fdaa22168c234c4c6628b80dc1cd129024e088a67cc74020bbea63b139b22514a08798e3404dd"
            + "ef9519b3cd3a431b302b0a6df25f14374fe1356d6d51c245e485b576625e7ec6f44c42e9a637ed6b0bff5cb6f406b7ed"
            + "ee386bfb5a899fa5ae9f24117c4b1fe649286651ece65381ffffffffffffffff"
        // RFC 2409 group 2's prime p: keys p-1, p and above are outside the group.
        let prime = stride(from: 0, to: hex.count, by: 2).map { offset -> UInt8 in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
        }
        var primeMinusOne = prime
        primeMinusOne[primeMinusOne.count - 1] -= 1
        let keys: [[UInt8]] = [
            [], [0], [1], [UInt8](repeating: 0, count: 128), [UInt8](repeating: 0, count: 127) + [1],
            primeMinusOne, prime, [UInt8](repeating: 0xFF, count: 128), [UInt8](repeating: 0xFF, count: 129),
            [UInt8](repeating: 0x01, count: 4096), [UInt8](repeating: 0x7F, count: 1 << 20),
        ]
        for key in keys {
            #expect(await h.errorName(service, nil, "OpenSession",
                                      [.string(SecretServiceNames.dhAlgorithm), .variant(.bytes(key))])
                == Self.invalidArgs, "peer key of \(key.count) bytes")
        }
        let children = try await h.ok("/org/freedesktop/secrets/session", SecretServiceNames.introspectableInterface,
                                      "Introspect")
        #expect(children.first?.string?.contains("<node name=") == false)
    }

    /// Secrets no DH session may accept: wrong IV lengths, ciphertext that is not whole blocks, and ciphertext
    /// altered so its padding is invalid (the last byte of the next-to-last block flips the padding byte).
    func hostileSecrets(_ cipher: DHSessionCipher, session: ObjectPath) throws -> [(String, WireSecret)] {
        // 16 bytes of secret: the ciphertext is the data block plus a whole block of padding (sixteen 0x10).
        let (iv, ciphertext) = try cipher.encrypt(try SecretBytes(copying: Array("0123456789abcdef".utf8)))
        func with(_ parameters: [UInt8], _ value: [UInt8]) -> WireSecret {
            WireSecret(session: session, parameters: parameters, value: value, contentType: "text/plain")
        }
        func flipping(_ mask: UInt8) -> [UInt8] {
            var altered = ciphertext
            altered[15] ^= mask
            return altered
        }
        return [
            ("no IV", with([], ciphertext)),
            ("15-byte IV", with(Array(iv.prefix(15)), ciphertext)),
            ("17-byte IV", with(iv + [0], ciphertext)),
            ("4 KiB IV", with([UInt8](repeating: 7, count: 4096), ciphertext)),
            ("empty ciphertext", with(iv, [])),
            ("ciphertext one byte short", with(iv, Array(ciphertext.dropLast()))),
            ("ciphertext one byte long", with(iv, ciphertext + [0])),
            ("padding byte 0x11", with(iv, flipping(0x01))),
            ("padding byte 0x00", with(iv, flipping(0x10))),
            ("padding 0x02 after 0x10", with(iv, flipping(0x12))),
            ("data block only (no padding)", with(iv, Array(ciphertext.prefix(16)))),
        ]
    }

    @Test("CreateItem and SetSecret refuse every malformed DH secret with InvalidArgs and change nothing")
    func secrets() async throws {
        let h = try await RouterHarness()
        let (session, cipher) = try await dhSession(h)
        let (iv, value) = try cipher.encrypt(try SecretBytes(copying: Array("kept".utf8)))
        let good = WireSecret(session: session, parameters: iv, value: value, contentType: "text/plain")
        let created = try await h.ok(defaultAlias, nil, "CreateItem", [
            .variantDictionary([SecretPropertyKeys.itemLabel: .string("L")]), good.dbusValue, .boolean(false),
        ])
        let item = try #require(created.first?.objectPath)
        for (name, secret) in try hostileSecrets(cipher, session: session) {
            #expect(await h.errorName(defaultAlias, nil, "CreateItem", [
                .variantDictionary([SecretPropertyKeys.itemLabel: .string(name)]), secret.dbusValue, .boolean(false),
            ]) == Self.invalidArgs, "CreateItem with \(name)")
            #expect(await h.errorName(item, nil, "SetSecret", [secret.dbusValue]) == Self.invalidArgs,
                    "SetSecret with \(name)")
        }
        #expect(try await h.store.itemIDs(in: "session").count == 1)
        let got = try #require(WireSecret(try await h.ok(item, nil, "GetSecret", [.objectPath(session)])[0]))
        #expect(try cipher.decrypt(iv: got.parameters, ciphertext: got.value).copyBytes() == Array("kept".utf8))
    }
}

// SPDX-License-Identifier: Apache-2.0
// Bus-free checks of the client's pieces: secret decoding rules and signal filters.

import DBusWire
import SecretCrypto
@testable import SecretServiceClient
import SecretServiceProtocol
import Testing

@Suite("Client pieces without a bus")
struct ClientUnitTests {
    private static let sessionPath: ObjectPath = "/org/freedesktop/secrets/session/7"

    /// A DH client session and the matching provider-side cipher.
    private static func dhPair() throws -> (client: ClientSession, provider: DHSessionCipher) {
        let clientKeys = try DHKeyPair()
        let provider = try DHSessionCipher(peerPublicKey: clientKeys.publicKey)
        let cipher = try DHSessionCipher(keyPair: clientKeys, peerPublicKey: provider.publicKey)
        return (ClientSession(path: sessionPath, algorithm: .dh, cipher: cipher), provider)
    }

    @Test("DH: what the provider encrypts decodes, with a fresh IV per encoded secret")
    func dhRoundTrip() throws {
        let (client, provider) = try Self.dhPair()
        let (iv, ciphertext) = try provider.encrypt(try SecretBytes(copying: Array("pw".utf8)))
        let wire = WireSecret(session: Self.sessionPath, parameters: iv, value: ciphertext, contentType: "text/plain")
        #expect(try client.decode(wire).copyBytes() == Array("pw".utf8))

        let first = try client.encode(try SecretBytes(copying: Array("x".utf8)), contentType: "text/plain")
        let second = try client.encode(try SecretBytes(copying: Array("x".utf8)), contentType: "text/plain")
        #expect(first.session == Self.sessionPath)
        #expect(first.parameters.count == 16 && first.parameters != second.parameters)
        #expect(try provider.decrypt(iv: first.parameters, ciphertext: first.value).copyBytes() == Array("x".utf8))
    }

    @Test("DH: secrets for another session, with a bad IV, or not whole blocks are rejected")
    func dhRejections() throws {
        let (client, provider) = try Self.dhPair()
        let (iv, ciphertext) = try provider.encrypt(try SecretBytes(copying: Array("pw".utf8)))
        let bad = [
            WireSecret(session: "/org/freedesktop/secrets/session/8", parameters: iv, value: ciphertext, contentType: ""),
            WireSecret(session: Self.sessionPath, parameters: Array(iv.prefix(15)), value: ciphertext, contentType: ""),
            WireSecret(session: Self.sessionPath, parameters: iv, value: [], contentType: ""),
            WireSecret(session: Self.sessionPath, parameters: iv, value: Array(ciphertext.dropLast()), contentType: ""),
        ]
        for wire in bad {
            #expect(throws: SecretServiceClientError.self) { _ = try client.decode(wire) }
        }
    }

    @Test("plain: bytes pass through unchanged, but the session must still be ours")
    func plain() throws {
        let client = ClientSession(path: Self.sessionPath, algorithm: .plain, cipher: nil)
        let wire = try client.encode(try SecretBytes(copying: [0, 0xFF]), contentType: "application/octet-stream")
        #expect(wire.parameters.isEmpty && wire.value == [0, 0xFF])
        #expect(try client.decode(wire).copyBytes() == [0, 0xFF])
        var foreign = wire
        foreign.session = "/org/freedesktop/secrets/session/1"
        #expect(throws: SecretServiceClientError.self) { _ = try client.decode(foreign) }
    }

    @Test("signal filters: match rules and local matching")
    func signalFilters() {
        let prompt: ObjectPath = "/org/freedesktop/secrets/prompt/3"
        #expect(SignalFilter.promptCompleted(prompt).matchRule
            == "type='signal',path='/org/freedesktop/secrets/prompt/3',interface='org.freedesktop.Secret.Prompt',member='Completed'")
        #expect(SignalFilter(arg0: "it's").matchRule == "type='signal',arg0='it'\\''s'")

        let completed = Message.signal(path: prompt, interface: SecretServiceNames.promptInterface, member: "Completed",
                                       body: [.boolean(false), .variant(.string(""))])
        #expect(SignalFilter.promptCompleted(prompt).matches(completed))
        #expect(!SignalFilter.promptCompleted("/org/freedesktop/secrets/prompt/4").matches(completed))
        #expect(!SignalFilter(sender: ":1.9").matches(completed))  // unique senders are checked locally

        let owner = Message.signal(path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                   member: "NameOwnerChanged",
                                   body: [.string("org.freedesktop.secrets"), .string(":1.2"), .string("")])
        #expect(SignalFilter.nameOwnerChanged(SecretServiceNames.busName).matches(owner))
        #expect(!SignalFilter.nameOwnerChanged("org.example.Other").matches(owner))
    }
}

// SPDX-License-Identifier: Apache-2.0
// A client's transfer session: how secrets are encoded between this caller and the daemon.

import DBusWire
import SecretCrypto
import SecretServiceProtocol
import SecretStore

/// A negotiated session. `plain` sends secrets as they are; the DH algorithm encrypts each with AES-128-CBC under a
/// key only the two ends know, with a fresh IV per secret.
struct SecretSession: Sendable {
    enum Algorithm: Sendable {
        case plain
        case dh(DHSessionCipher)
    }

    var id: String
    var owner: BusName
    var algorithm: Algorithm

    var path: ObjectPath { SecretObjectPath.session(id).objectPath }

    /// Encodes a stored secret for this session; the session path inside is always this session's own, as libsecret
    /// checks.
    func encode(_ secret: StoredSecret) throws(SecretServiceError) -> WireSecret {
        switch algorithm {
        case .plain:
            return Self.plain(secret, session: path)
        case .dh(let cipher):
            do {
                let (iv, ciphertext) = try cipher.encrypt(secret.value)
                return WireSecret(session: path, parameters: iv, value: ciphertext, contentType: secret.contentType)
            } catch {
                throw .failed("the secret could not be encrypted for the session")
            }
        }
    }

    private static func plain(_ secret: StoredSecret, session: ObjectPath) -> WireSecret {
        WireSecret(session: session, parameters: [], value: secret.value.copyBytes(), contentType: secret.contentType)
    }

    /// An encoder for a run of `count` secrets (`GetSecrets`), each encoded as the one-secret `encode` does, one at a
    /// time as the store reads them.
    func encoder(count: Int) -> Encoder {
        let run: DHSessionCipher.Run?
        switch algorithm {
        case .plain: run = nil
        case .dh(let cipher): run = cipher.run(count: count)
        }
        return Encoder(session: path, run: run)
    }

    /// Encodes the secrets of one run; the session path is built once for all of them.
    struct Encoder: Sendable {
        let session: ObjectPath
        let run: DHSessionCipher.Run?

        /// Encodes the secret at position `index` of the run (each position holds one secret).
        func encode(_ secret: StoredSecret, at index: Int) throws(SecretServiceError) -> WireSecret {
            guard let run else { return SecretSession.plain(secret, session: session) }
            do {
                let (iv, ciphertext) = try run.encrypt(secret.value, at: index)
                return WireSecret(session: session, parameters: iv, value: ciphertext, contentType: secret.contentType)
            } catch {
                throw .failed("the secrets could not be encrypted for the session")
            }
        }
    }

    /// Decodes a secret a client sent in this session.
    /// - Throws: `invalidArgs` when the parameters or ciphertext are malformed or do not decrypt; `failed` when no
    ///   secure memory is left for the secret.
    func decode(_ wire: WireSecret) throws(SecretServiceError) -> StoredSecret {
        switch algorithm {
        case .plain:
            do {
                return StoredSecret(value: try SecretBytes(copying: wire.value), contentType: wire.contentType)
            } catch {
                throw .failed("cofferd has no secure memory left for the secret")
            }
        case .dh(let cipher):
            guard wire.parameters.count == 16 else {
                throw .invalidArgs("the secret's parameters must be a 16-byte IV for this session")
            }
            guard !wire.value.isEmpty, wire.value.count % 16 == 0 else {
                throw .invalidArgs("the secret's value is not a valid AES-CBC ciphertext")
            }
            do {
                return StoredSecret(value: try cipher.decrypt(iv: wire.parameters, ciphertext: wire.value),
                                    contentType: wire.contentType)
            } catch let error as CryptoError where error == .secureMemoryExhausted {
                throw .failed("cofferd has no secure memory left for the secret")
            } catch {
                throw .invalidArgs("the secret could not be decrypted with this session's key")
            }
        }
    }
}

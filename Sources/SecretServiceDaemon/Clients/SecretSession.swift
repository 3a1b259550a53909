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

    /// Encodes several stored secrets, in order, each as the one-secret `encode` does.
    func encode(_ secrets: [StoredSecret]) throws(SecretServiceError) -> [WireSecret] {
        let session = path  // built once, not once per secret
        guard case .dh(let cipher) = algorithm else {
            return secrets.map { Self.plain($0, session: session) }
        }
        do {
            return zip(secrets, try cipher.encrypt(secrets.map(\.value))).map { secret, sealed in
                WireSecret(session: session, parameters: sealed.iv, value: sealed.ciphertext,
                           contentType: secret.contentType)
            }
        } catch {
            throw .failed("the secrets could not be encrypted for the session")
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

// SPDX-License-Identifier: Apache-2.0
// An open transfer session on the client side: negotiates it, and encodes and decodes secrets for it.

public import DBusWire
public import SecretCrypto
public import SecretServiceProtocol

/// A transfer session this client opened. It turns plaintext into `Secret` structs for the provider (a fresh IV
/// per secret under DH) and checks and decrypts the structs the provider sends back.
public struct ClientSession: Sendable {
    /// The session's object path; every secret exchanged in it carries this path.
    public let path: ObjectPath
    /// The negotiated algorithm.
    public let algorithm: SessionAlgorithm
    private let cipher: DHSessionCipher?

    init(path: ObjectPath, algorithm: SessionAlgorithm, cipher: DHSessionCipher?) {
        self.path = path
        self.algorithm = algorithm
        self.cipher = cipher
    }

    // MARK: - Negotiation

    /// Opens a session: DH first when preferred, falling back to `plain` only on `NotSupported` and only when
    /// allowed.
    /// - Parameters:
    ///   - service: the service to negotiate with.
    ///   - preferred: the algorithm to try first.
    ///   - allowPlainFallback: whether a provider without DH may get a `plain` session.
    /// - Returns: the open session.
    /// - Throws: ``SecretServiceClientError/algorithmNotSupported(_:)`` when DH is refused and falling back is not
    ///   allowed; `SecretServiceError` or `SecretServiceClientError` otherwise.
    public static func open(with service: ServiceProxy, preferring preferred: SessionAlgorithm,
                            allowPlainFallback: Bool) async throws -> ClientSession {
        guard preferred == .dh else { return try await openPlain(with: service) }
        do {
            return try await openDH(with: service)
        } catch SecretServiceError.notSupported {
            guard allowPlainFallback else {
                throw SecretServiceClientError.algorithmNotSupported(SessionAlgorithm.dh.wireName)
            }
            return try await openPlain(with: service)
        }
    }

    private static func openPlain(with service: ServiceProxy) async throws -> ClientSession {
        let (_, path) = try await service.openSession(algorithm: SessionAlgorithm.plain.wireName, input: .string(""))
        guard path != .root else { throw SecretServiceClientError.unexpectedReply("OpenSession(plain) returned no session") }
        return ClientSession(path: path, algorithm: .plain, cipher: nil)
    }

    private static func openDH(with service: ServiceProxy) async throws -> ClientSession {
        let keyPair: DHKeyPair
        do {
            keyPair = try DHKeyPair()
        } catch {
            throw SecretServiceClientError.transport("cannot generate a DH key pair: \(error)")
        }
        let (output, path) = try await service.openSession(
            algorithm: SessionAlgorithm.dh.wireName, input: .bytes(keyPair.publicKey))
        guard path != .root else {
            throw SecretServiceClientError.unexpectedReply("OpenSession(DH) asked for another negotiation round")
        }
        guard let serverKey = output.bytes else {
            try? await SessionProxy(connection: service.target.connection, path: path,
                                    destination: service.target.destination).close()
            throw SecretServiceClientError.unexpectedReply("OpenSession(DH) output is not a byte array")
        }
        do {
            let cipher = try DHSessionCipher(keyPair: keyPair, peerPublicKey: serverKey)
            return ClientSession(path: path, algorithm: .dh, cipher: cipher)
        } catch {
            try? await SessionProxy(connection: service.target.connection, path: path,
                                    destination: service.target.destination).close()
            throw SecretServiceClientError.unexpectedReply("the provider's DH public key is not acceptable")
        }
    }

    // MARK: - Secrets

    /// Encodes a secret for sending in this session.
    /// - Parameters:
    ///   - secret: the plaintext.
    ///   - contentType: the content type, for example `text/plain`.
    /// - Returns: the `(oayays)` struct; under DH with a fresh random IV.
    /// - Throws: ``SecretServiceClientError/transport(_:)`` if encryption fails.
    public func encode(_ secret: SecretBytes, contentType: String) throws -> WireSecret {
        guard let cipher else {
            return WireSecret(session: path, parameters: [], value: secret.copyBytes(), contentType: contentType)
        }
        do {
            let (iv, ciphertext) = try cipher.encrypt(secret)
            return WireSecret(session: path, parameters: iv, value: ciphertext, contentType: contentType)
        } catch {
            throw SecretServiceClientError.transport("cannot encrypt the secret for the session")
        }
    }

    /// Checks and decodes a secret the provider sent in this session.
    /// - Parameter wire: the received struct.
    /// - Returns: the plaintext, in secure memory.
    /// - Throws: ``SecretServiceClientError/unexpectedReply(_:)`` when the struct names another session, has an IV
    ///   that is not 16 bytes, a ciphertext that is empty or not whole blocks, or does not decrypt.
    public func decode(_ wire: WireSecret) throws -> SecretBytes {
        guard wire.session == path else {
            throw SecretServiceClientError.unexpectedReply("received a secret encoded with another session")
        }
        guard let cipher else { return try SecretBytes(copying: wire.value) }
        guard wire.parameters.count == 16 else {
            throw SecretServiceClientError.unexpectedReply("the secret's IV is \(wire.parameters.count) bytes, not 16")
        }
        guard !wire.value.isEmpty, wire.value.count % 16 == 0 else {
            throw SecretServiceClientError.unexpectedReply("the secret's ciphertext is not whole AES blocks")
        }
        do {
            return try cipher.decrypt(iv: wire.parameters, ciphertext: wire.value)
        } catch {
            throw SecretServiceClientError.unexpectedReply("the secret does not decrypt with this session's key")
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// The complete dh-ietf1024-sha256-aes128-cbc-pkcs7 session cipher: DH agreement, HKDF key, AES-128-CBC.

/// The session cipher of the Secret Service algorithm `dh-ietf1024-sha256-aes128-cbc-pkcs7`.
///
/// The AES-128 key is HKDF-SHA256 over the 128-byte zero-padded shared secret, with an empty salt (32 zero bytes),
/// empty info and 16 bytes of output. Each secret is encrypted with AES-128-CBC and PKCS#7 padding under a fresh
/// random 16-byte IV.
public struct DHSessionCipher: Sendable {
    /// Our public key to send to the peer (unsigned big-endian, minimal length).
    public let publicKey: [UInt8]

    /// The session key as a keyed cipher context, opened once per session rather than once per secret.
    private let key: AES128CBC.Key

    // MARK: - Initialisers

    /// Server side: generates a fresh key pair and derives the session key from the client's public key.
    /// - Parameter peerPublicKey: The client's public key (the `OpenSession` input).
    /// - Throws: ``CryptoError/invalidPublicKey`` for an unacceptable peer key, or a libgcrypt error.
    public init(peerPublicKey: [UInt8]) throws {
        try self.init(keyPair: DHKeyPair(), peerPublicKey: peerPublicKey)
    }

    /// Either side, with an existing key pair (the client uses this after receiving the server's key).
    /// - Parameters:
    ///   - keyPair: Our key pair.
    ///   - peerPublicKey: The other side's public key.
    /// - Throws: ``CryptoError/invalidPublicKey`` for an unacceptable peer key; ``CryptoError/secureMemoryExhausted``
    ///   when the secure-memory pool is down to the reserve it keeps for other work; or a libgcrypt error.
    public init(keyPair: DHKeyPair, peerPublicKey: [UInt8]) throws {
        let sharedSecret = try keyPair.sharedSecret(peerPublicKey: peerPublicKey)
        key = try AES128CBC.Key(HKDF.sha256(
            inputKeyMaterial: sharedSecret, salt: [], info: [], outputByteCount: AES128CBC.keyByteCount))
        // The keyed context stays in the pool as long as the session, and clients can open thousands of sessions:
        // one is kept only while the pool keeps its reserve for unlocking and the secrets in flight.
        guard SecureMemory.sessionReserveIsFree() else {
            throw CryptoError(.secureMemoryExhausted("the pool is down to the reserve that sessions may not take"))
        }
        publicKey = keyPair.publicKey
    }

    // MARK: - Secrets

    /// Encrypts a secret under a fresh random IV.
    /// - Parameter plaintext: The secret (may be empty; it then encrypts to one 16-byte block).
    /// - Returns: The IV (the `Secret.parameters`) and the ciphertext (the `Secret.value`).
    /// - Throws: ``CryptoError`` if libgcrypt fails.
    public func encrypt(_ plaintext: SecretBytes) throws -> (iv: [UInt8], ciphertext: [UInt8]) {
        let iv = SecureRandom.nonce(count: AES128CBC.blockSize)
        return (iv, try key.encrypt(plaintext, iv: iv))
    }

    /// A run of `count` secrets to encrypt one at a time (`GetSecrets`), each under a fresh random IV of its own, as
    /// ``encrypt(_:)`` does.
    public func run(count: Int) -> Run {
        Run(key: key, ivs: SecureRandom.nonce(count: AES128CBC.blockSize * count), count: count)
    }

    /// The IVs of a run of secrets, drawn in one call: the nonce generator's fixed work per call (a lock, a check for
    /// a fork) was a visible share of reading many secrets at once. Each secret is encrypted as soon as it is read,
    /// so its plaintext can be released before the next one is decrypted: a read of many secrets never holds them
    /// all in secure memory, whose allocator also slows with every block it holds.
    public struct Run: Sendable {
        fileprivate let key: AES128CBC.Key
        fileprivate let ivs: [UInt8]
        public let count: Int

        /// Encrypts the secret at `index` of the run under that position's IV. Each position is for one secret:
        /// two secrets at one position would share an IV.
        /// - Returns: The IV and ciphertext, as ``DHSessionCipher/encrypt(_:)`` gives them.
        public func encrypt(_ plaintext: SecretBytes, at index: Int) throws -> (iv: [UInt8], ciphertext: [UInt8]) {
            precondition(index >= 0 && index < count, "a run's position is within it")
            let iv = Array(ivs[(index * AES128CBC.blockSize)..<((index + 1) * AES128CBC.blockSize)])
            return (iv, try key.encrypt(plaintext, iv: iv))
        }
    }

    /// Decrypts a secret.
    /// - Parameters:
    ///   - iv: The `Secret.parameters`; must be 16 bytes.
    ///   - ciphertext: The `Secret.value`; a non-empty multiple of 16 bytes.
    /// - Returns: The plaintext, in secure memory.
    /// - Throws: ``CryptoError/invalidIV``, ``CryptoError/invalidCiphertext`` or ``CryptoError/invalidPadding``.
    public func decrypt(iv: [UInt8], ciphertext: [UInt8]) throws -> SecretBytes {
        try key.decrypt(ciphertext, iv: iv)
    }
}

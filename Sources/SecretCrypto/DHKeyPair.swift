// SPDX-License-Identifier: Apache-2.0
// A Diffie-Hellman key pair in the RFC 2409 Second Oakley Group, as dh-ietf1024-sha256-aes128-cbc-pkcs7 uses it.

/// A Diffie-Hellman key pair in the RFC 2409 §6.2 Second Oakley Group (1024-bit MODP, g = 2), as the Secret
/// Service `dh-ietf1024-sha256-aes128-cbc-pkcs7` algorithm uses it.
///
/// Keys travel as unsigned big-endian integers. The private exponent stays in secure memory; the MPIs built from it
/// are allocated in secure memory too.
public struct DHKeyPair: Sendable {
    /// The largest accepted peer key length, and the length of a padded shared secret.
    public static let maximumKeyByteCount = OakleyGroup2.byteCount

    private let privateExponent: SecretBytes

    /// Our public key g^x mod p as an unsigned big-endian integer of minimal length (no leading zero bytes and never
    /// a sign byte).
    public let publicKey: [UInt8]

    // MARK: - Initialisers

    /// Generates a key pair with a private exponent of 1024 random bits from `GCRY_STRONG_RANDOM`.
    /// - Throws: ``CryptoError`` if libgcrypt fails.
    ///
    /// The corresponding C functions are `gcry_randomize`, `gcry_mpi_scan` and `gcry_mpi_powm`.
    public init() throws {
        var exponent = try SecureRandom.secretBytes(count: OakleyGroup2.byteCount)
        while try Self.isTrivialExponent(exponent) {  // 0 or 1: probability 2^-1023, but cheap to exclude.
            exponent = try SecureRandom.secretBytes(count: OakleyGroup2.byteCount)
        }
        try self.init(exponent: exponent)
    }

    /// Creates a key pair from a fixed private exponent (big-endian). For known-answer tests only.
    /// - Parameter privateExponent: The exponent x, at most 128 bytes.
    /// - Throws: ``CryptoError/invalidParameter`` if the exponent is empty or longer than 128 bytes.
    init(privateExponent: [UInt8]) throws {
        guard (1...OakleyGroup2.byteCount).contains(privateExponent.count) else { throw CryptoError.invalidParameter }
        try self.init(exponent: try SecretBytes(copying: privateExponent))
    }

    private init(exponent: SecretBytes) throws {
        try SecretCrypto.ensureInitialized()
        let prime = try OakleyGroup2.primeMPI()
        let x = try MPI(unsignedBigEndian: exponent)
        let y = MPI(OakleyGroup2.generator).power(x, modulus: prime, secure: false)
        privateExponent = exponent
        publicKey = try y.unsignedBigEndianBytes()
    }

    // MARK: - Agreement

    /// Computes the shared secret Z = peer^x mod p.
    ///
    /// The peer key is an unsigned big-endian integer of 1...128 bytes (leading zero bytes are allowed within 128),
    /// and must lie in 2...p-2.
    /// - Parameter peerPublicKey: The other side's public key.
    /// - Returns: Z serialised big-endian and left-padded with zeros to exactly 128 bytes, in secure memory.
    /// - Throws: ``CryptoError/invalidPublicKey`` if the key is empty, longer than 128 bytes, or is 0, 1, p-1 or
    ///   at least p.
    ///
    /// The corresponding C functions are `gcry_mpi_scan`, `gcry_mpi_cmp` and `gcry_mpi_powm`.
    public func sharedSecret(peerPublicKey: [UInt8]) throws -> SecretBytes {
        guard (1...OakleyGroup2.byteCount).contains(peerPublicKey.count) else { throw CryptoError.invalidPublicKey }
        try SecretCrypto.ensureInitialized()
        let prime = try OakleyGroup2.primeMPI()
        let peer = try MPI(unsignedBigEndian: peerPublicKey)
        let primeMinusOne = prime.subtracting(1)
        guard peer.compare(to: 1) > 0, peer.compare(to: primeMinusOne) < 0 else {
            throw CryptoError.invalidPublicKey
        }
        let x = try MPI(unsignedBigEndian: privateExponent)
        let z = peer.power(x, modulus: prime, secure: true)
        let padded = try SecretBytes(count: OakleyGroup2.byteCount)
        try padded.withUnsafeMutableBytes { try z.writeUnsignedBigEndian(rightAlignedInto: $0) }
        return padded
    }

    // MARK: - Helpers

    /// Whether the exponent is 0 or 1 (which would make the public key 1 or g).
    private static func isTrivialExponent(_ exponent: SecretBytes) throws -> Bool {
        let x = try MPI(unsignedBigEndian: exponent)
        return x.compare(to: 1) <= 0
    }

    /// Whether the private exponent's MPI lands in secure memory (for tests).
    var privateExponentIsSecure: Bool {
        (try? MPI(unsignedBigEndian: privateExponent).isSecure) ?? false
    }
}

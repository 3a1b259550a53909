// SPDX-License-Identifier: Apache-2.0
// RSA keys in PKCS#1 form: generation, PKCS#1 v1.5 and PSS signatures, PKCS#1 v1.5 and OAEP encryption.

internal import CGcrypt

/// How an RSA signature pads the digest.
public enum RSASignaturePadding: Sendable {
    /// EMSA-PKCS1-v1_5.
    case pkcs1v15
    /// EMSA-PSS with MGF1 over the same digest and a salt as long as the digest (Apple's choice).
    case pss
}

/// How RSA encryption pads the plaintext.
public enum RSAEncryptionPadding: Sendable {
    /// RSAES-PKCS1-v1_5.
    case pkcs1
    /// RSAES-OAEP with MGF1 over the same digest and an empty label.
    case oaep(DigestAlgorithm)

    /// The `flags` (and, for OAEP, `hash-algo`) that tell libgcrypt the padding, the same for encrypting and
    /// decrypting.
    func describe(in builder: inout SExpressionBuilder) {
        switch self {
        case .pkcs1:
            builder.pair("flags", "pkcs1")
        case .oaep(let digest):
            builder.pair("flags", "oaep")
            builder.pair("hash-algo", digest.sexpName)
        }
    }
}

/// An RSA public key as PKCS#1 `RSAPublicKey` DER.
public struct RSAPublicKey: Sendable, Equatable {
    /// `RSAPublicKey` DER.
    public let pkcs1: [UInt8]
    let modulus: [UInt8]
    let exponent: [UInt8]

    /// The modulus size in bits.
    public var sizeInBits: Int {
        let significant = modulus.drop { $0 == 0 }
        guard let top = significant.first else { return 0 }
        return significant.count * 8 - top.leadingZeroBitCount
    }

    /// The modulus length in bytes: the length of every signature and ciphertext.
    public var blockByteCount: Int { (sizeInBits + 7) / 8 }

    /// - Throws: ``CryptoError/invalidPublicKey`` for anything but `SEQUENCE { n, e }`.
    public init(pkcs1: [UInt8]) throws {
        guard let ranges = try? pkcs1.withUnsafeBytes({ try DERIntegers.ranges(in: $0) }), ranges.count == 2 else {
            throw CryptoError.invalidPublicKey
        }
        self.init(pkcs1: pkcs1, modulus: Array(pkcs1[ranges[0]]), exponent: Array(pkcs1[ranges[1]]))
        guard sizeInBits >= 512 else { throw CryptoError.invalidPublicKey }
    }

    private init(pkcs1: [UInt8], modulus: [UInt8], exponent: [UInt8]) {
        self.pkcs1 = pkcs1
        self.modulus = modulus
        self.exponent = exponent
    }

    init(modulus: [UInt8], exponent: [UInt8]) throws {
        try self.init(pkcs1: DERIntegers.encode(public: [modulus, exponent]))
    }

    /// Whether `signature` signs `digest` (of `algorithm`) with `padding`.
    ///
    /// The corresponding C function is `gcry_pk_verify`.
    public func verify(signature: [UInt8], digest: [UInt8], algorithm: DigestAlgorithm,
                       padding: RSASignaturePadding) -> Bool {
        guard signature.count == blockByteCount, digest.count == algorithm.byteCount,
              let key = try? keyExpression(), let data = try? RSAPrivateKey.signedData(digest, algorithm, padding)
        else { return false }
        var builder = SExpressionBuilder()
        builder.open("sig-val")
        builder.open("rsa")
        builder.number("s", signature)
        builder.close()
        builder.close()
        guard let sig = try? builder.sexp() else { return false }
        return PublicKeyCall.verify(sig, data: data, key: key)
    }

    /// Encrypts `plaintext` to this key.
    /// - Returns: a ciphertext of ``blockByteCount`` bytes.
    /// - Throws: ``CryptoError/invalidParameter`` when the plaintext is too long for the padding.
    ///
    /// The corresponding C function is `gcry_pk_encrypt`.
    public func encrypt(_ plaintext: SecretBytes, padding: RSAEncryptionPadding) throws -> [UInt8] {
        let overhead = switch padding {
        case .pkcs1: 11
        case .oaep(let digest): 2 * digest.byteCount + 2
        }
        guard plaintext.count + overhead <= blockByteCount else {
            throw CryptoError(.invalidParameter("plaintext too long for the key"))
        }
        var builder = SExpressionBuilder()
        builder.open("data")
        padding.describe(in: &builder)
        builder.secretPair("value", plaintext)
        builder.close()
        let result = try PublicKeyCall.encrypt(builder.sexp(), key: keyExpression())
        return try Self.leftPadded(result.publicValue("a"), to: blockByteCount)
    }

    func keyExpression() throws -> SExpression {
        var builder = SExpressionBuilder()
        builder.open("public-key")
        builder.open("rsa")
        builder.number("n", modulus)
        builder.number("e", exponent)
        builder.close()
        builder.close()
        return try builder.sexp()
    }

    static func leftPadded(_ value: [UInt8], to length: Int) throws -> [UInt8] {
        let significant = Array(value.drop { $0 == 0 })
        guard significant.count <= length else { throw CryptoError(.invalidParameter("value longer than modulus")) }
        return [UInt8](repeating: 0, count: length - significant.count) + significant
    }
}

/// An RSA private key; every private component stays in secure memory.
public final class RSAPrivateKey: Sendable {
    public let publicKey: RSAPublicKey
    /// d, and libgcrypt's p, q and u = p⁻¹ mod q (PKCS#1's prime2, prime1 and coefficient).
    private let d: SecretBytes, p: SecretBytes, q: SecretBytes, u: SecretBytes

    /// The key sizes generation accepts, as Apple's does.
    public static let generatedSizes = 1024...4096

    /// A fresh key pair with public exponent 65537.
    /// - Throws: ``CryptoError/invalidParameter`` for a size outside ``generatedSizes`` or not a multiple of 8.
    ///
    /// The corresponding C function is `gcry_pk_genkey` (`(genkey(rsa(nbits …)))`).
    public static func generate(bits: Int) throws -> RSAPrivateKey {
        guard generatedSizes.contains(bits), bits % 8 == 0 else {
            throw CryptoError(.invalidParameter("RSA key size \(bits)"))
        }
        var builder = SExpressionBuilder()
        builder.open("genkey")
        builder.open("rsa")
        builder.pair("nbits", String(bits))
        builder.close()
        builder.close()
        let pair = try PublicKeyCall.generate(builder.sexp())
        guard let secret = pair.find("private-key") else {
            throw CryptoError(.invalidParameter("libgcrypt returned no private key"))
        }
        let length = bits / 8
        let publicKey = try RSAPublicKey(modulus: secret.publicValue("n"), exponent: secret.publicValue("e"))
        return RSAPrivateKey(publicKey: publicKey, d: try secret.secretValue("d", length: length),
                             p: try secret.secretValue("p", length: length),
                             q: try secret.secretValue("q", length: length),
                             u: try secret.secretValue("u", length: length))
    }

    /// Reads PKCS#1 `RSAPrivateKey` DER (two-prime, version 0).
    /// - Throws: ``CryptoError/invalidKey`` for anything else.
    public convenience init(pkcs1: SecretBytes) throws {
        guard let ranges = try? pkcs1.withUnsafeBytes({ try DERIntegers.ranges(in: $0) }), ranges.count == 9,
              pkcs1.withUnsafeBytes({ ranges[0].count == 1 && $0[ranges[0].lowerBound] == 0 })
        else { throw CryptoError.invalidKey }
        func secret(_ index: Int) throws -> SecretBytes {
            try pkcs1.withUnsafeBytes { try SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0[ranges[index]])) }
        }
        let publicKey: RSAPublicKey
        do {
            publicKey = try RSAPublicKey(modulus: secret(1).copyBytes(), exponent: secret(2).copyBytes())
        } catch {
            throw CryptoError.invalidKey
        }
        let (prime1, prime2) = (try secret(4), try secret(5))
        // Parts that do not belong together would make libgcrypt sign with garbage: the primes must give n.
        let product = try MPI(unsignedBigEndian: prime1).multiplied(by: try MPI(unsignedBigEndian: prime2), secure: true)
        guard product.compare(to: try MPI(unsignedBigEndian: publicKey.modulus)) == 0 else {
            throw CryptoError.invalidKey
        }
        // libgcrypt's CRT uses u = p⁻¹ mod q; PKCS#1's coefficient is prime2⁻¹ mod prime1, so p is prime2.
        self.init(publicKey: publicKey, d: try secret(3), p: prime2, q: prime1, u: try secret(8))
    }

    private init(publicKey: RSAPublicKey, d: SecretBytes, p: SecretBytes, q: SecretBytes, u: SecretBytes) {
        self.publicKey = publicKey
        (self.d, self.p, self.q, self.u) = (d, p, q, u)
    }

    /// PKCS#1 `RSAPrivateKey` DER, in secure memory.
    ///
    /// The corresponding C functions are `gcry_mpi_sub_ui` and `gcry_mpi_mod` (for the CRT exponents).
    public func pkcs1() throws -> SecretBytes {
        let dMPI = try MPI(unsignedBigEndian: d)
        func exponent(_ prime: SecretBytes) throws -> SecretBytes {
            let reduced = dMPI.modulo(try MPI(unsignedBigEndian: prime).subtracting(1), secure: true)
            let output = try SecretBytes(count: d.count)
            try output.withUnsafeMutableBytes { try reduced.writeUnsignedBigEndian(rightAlignedInto: $0) }
            return output
        }
        return try DERIntegers.encode([
            SecretBytes(count: 1), SecretBytes(copying: publicKey.modulus), SecretBytes(copying: publicKey.exponent),
            d, q, p, exponent(q), exponent(p), u,
        ])
    }

    /// A signature of `digest` (of `algorithm`), ``RSAPublicKey/blockByteCount`` bytes long.
    ///
    /// The corresponding C function is `gcry_pk_sign`.
    public func sign(digest: [UInt8], algorithm: DigestAlgorithm, padding: RSASignaturePadding) throws -> [UInt8] {
        guard digest.count == algorithm.byteCount else { throw CryptoError(.invalidParameter("digest length")) }
        let signature = try PublicKeyCall.sign(Self.signedData(digest, algorithm, padding), key: keyExpression())
        return try RSAPublicKey.leftPadded(signature.publicValue("s"), to: publicKey.blockByteCount)
    }

    /// Decrypts a ciphertext made by ``RSAPublicKey/encrypt(_:padding:)`` (or any RSAES implementation).
    /// - Throws: ``CryptoError/authenticationFailed`` for a ciphertext that does not decrypt with this key and
    ///   padding.
    ///
    /// The corresponding C function is `gcry_pk_decrypt`.
    public func decrypt(_ ciphertext: [UInt8], padding: RSAEncryptionPadding) throws -> SecretBytes {
        guard ciphertext.count == publicKey.blockByteCount else { throw CryptoError.invalidCiphertext }
        var builder = SExpressionBuilder()
        builder.open("enc-val")
        padding.describe(in: &builder)
        builder.open("rsa")
        builder.number("a", ciphertext)
        builder.close()
        builder.close()
        let result = try PublicKeyCall.decrypt(builder.sexp(), key: keyExpression())
        guard let value = result.find("value") else {
            throw CryptoError(.invalidParameter("libgcrypt returned no plaintext"))
        }
        return try value.withAtom(at: 1) { try SecretBytes(copying: $0) }
    }

    private func keyExpression() throws -> SExpression {
        var builder = SExpressionBuilder()
        builder.open("private-key")
        builder.open("rsa")
        builder.number("n", publicKey.modulus)
        builder.number("e", publicKey.exponent)
        builder.secretNumber("d", d)
        builder.secretNumber("p", p)
        builder.secretNumber("q", q)
        builder.secretNumber("u", u)
        builder.close()
        builder.close()
        return try builder.sexp()
    }

    static func signedData(_ digest: [UInt8], _ algorithm: DigestAlgorithm,
                           _ padding: RSASignaturePadding) throws -> SExpression {
        var builder = SExpressionBuilder()
        builder.open("data")
        switch padding {
        case .pkcs1v15: builder.pair("flags", "pkcs1")
        case .pss: builder.pair("flags", "pss")
        }
        builder.open("hash")
        builder.pieceAtom(algorithm.sexpName)
        builder.pieceAtom(digest)
        builder.close()
        if case .pss = padding { builder.pair("salt-length", String(algorithm.byteCount)) }
        builder.close()
        return try builder.sexp()
    }
}

// SPDX-License-Identifier: Apache-2.0
// NIST P-256/P-384/P-521 keys: generation, ECDSA with X9.62 DER signatures, ECDH.

/// A NIST prime curve.
public enum EllipticCurve: Sendable, CaseIterable {
    case p256, p384, p521

    /// The key size in bits.
    public var bits: Int {
        switch self {
        case .p256: 256
        case .p384: 384
        case .p521: 521
        }
    }

    /// The length of one coordinate (and of the private scalar) in bytes.
    public var coordinateByteCount: Int { (bits + 7) / 8 }

    /// The curve whose coordinates are `count` bytes long.
    public init?(coordinateByteCount count: Int) {
        guard let curve = Self.allCases.first(where: { $0.coordinateByteCount == count }) else { return nil }
        self = curve
    }

    var gcryptName: String {
        switch self {
        case .p256: "NIST P-256"
        case .p384: "NIST P-384"
        case .p521: "NIST P-521"
        }
    }
}

/// An elliptic-curve public key as its X9.63 uncompressed point `04‖X‖Y`.
public struct ECPublicKey: Sendable, Equatable {
    public let curve: EllipticCurve
    /// `04‖X‖Y`.
    public let x963: [UInt8]

    /// - Throws: ``CryptoError/invalidPublicKey`` unless `x963` is an uncompressed point on a supported curve.
    public init(x963: [UInt8]) throws {
        guard x963.count % 2 == 1, let curve = EllipticCurve(coordinateByteCount: x963.count / 2),
              try CurveContext(curve).contains(x963)
        else { throw CryptoError.invalidPublicKey }
        self.curve = curve
        self.x963 = x963
    }

    /// Whether `signature` (X9.62 DER `SEQUENCE { r, s }`) signs `digest`. A digest longer than the curve order is
    /// truncated to its leftmost bits, as ECDSA prescribes.
    ///
    /// The corresponding C function is `gcry_pk_verify`.
    public func verify(signature: [UInt8], digest: [UInt8], algorithm: DigestAlgorithm) -> Bool {
        guard let parts = try? signature.withUnsafeBytes({ try DERIntegers.ranges(in: $0) }), parts.count == 2,
              let key = try? keyExpression(), let data = try? ECPrivateKey.dataExpression(digest, algorithm)
        else { return false }
        var builder = SExpressionBuilder()
        builder.open("sig-val")
        builder.open("ecdsa")
        builder.number("r", Array(signature[parts[0]]))
        builder.number("s", Array(signature[parts[1]]))
        builder.close()
        builder.close()
        guard let sig = try? builder.sexp() else { return false }
        return PublicKeyCall.verify(sig, data: data, key: key)
    }

    func keyExpression() throws -> SExpression {
        var builder = SExpressionBuilder()
        builder.open("public-key")
        builder.open("ecc")
        builder.pair("curve", curve.gcryptName)
        builder.pair("q", x963)
        builder.close()
        builder.close()
        return try builder.sexp()
    }
}

/// An elliptic-curve private key; the scalar stays in secure memory.
public final class ECPrivateKey: Sendable {
    public let publicKey: ECPublicKey
    private let scalar: SecretBytes

    /// A fresh key pair.
    ///
    /// The corresponding C function is `gcry_pk_genkey` (`(genkey(ecc(curve …)))`).
    public static func generate(curve: EllipticCurve) throws -> ECPrivateKey {
        var builder = SExpressionBuilder()
        builder.open("genkey")
        builder.open("ecc")
        builder.pair("curve", curve.gcryptName)
        builder.close()
        builder.close()
        let pair = try PublicKeyCall.generate(builder.sexp())
        guard let secret = pair.find("private-key") else {
            throw CryptoError(.invalidParameter("libgcrypt returned no private key"))
        }
        let q = try secret.publicValue("q")
        let d = try secret.secretValue("d", length: curve.coordinateByteCount)
        return try ECPrivateKey(publicKey: ECPublicKey(x963: q), scalar: d)
    }

    /// Reads Apple's private-key representation `04‖X‖Y‖K`.
    /// - Throws: ``CryptoError/invalidKey`` unless K is a valid scalar whose public point is (X, Y).
    public convenience init(x963 representation: SecretBytes) throws {
        let parts = representation.count - 1
        guard parts % 3 == 0, let curve = EllipticCurve(coordinateByteCount: parts / 3) else {
            throw CryptoError.invalidKey
        }
        let length = curve.coordinateByteCount
        let point = representation.withUnsafeBytes { [UInt8]($0[..<(1 + 2 * length)]) }
        let scalar = try representation.withUnsafeBytes {
            try SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0[(1 + 2 * length)...]))
        }
        guard let publicKey = try? ECPublicKey(x963: point) else { throw CryptoError.invalidKey }
        try self.init(publicKey: publicKey, scalar: scalar)
    }

    private init(publicKey: ECPublicKey, scalar: SecretBytes) throws {
        let context = try CurveContext(publicKey.curve)
        guard try context.isValidScalar(scalar) else { throw CryptoError.invalidKey }
        let derived = try context.multiply(scalar, point: nil)
        guard [0x04] + derived.x.copyBytes() + derived.y == publicKey.x963 else { throw CryptoError.invalidKey }
        self.publicKey = publicKey
        self.scalar = scalar
    }

    /// Apple's private-key representation `04‖X‖Y‖K`, in secure memory.
    public func x963Representation() throws -> SecretBytes {
        let output = try SecretBytes(count: publicKey.x963.count + scalar.count)
        output.withUnsafeMutableBytes { out in
            publicKey.x963.withUnsafeBytes { out.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            scalar.withUnsafeBytes {
                (out.baseAddress! + publicKey.x963.count).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
            }
        }
        return output
    }

    /// An ECDSA signature of `digest` as X9.62 DER `SEQUENCE { r, s }` (the form Apple's X962 algorithms use).
    ///
    /// The corresponding C function is `gcry_pk_sign`.
    public func sign(digest: [UInt8], algorithm: DigestAlgorithm) throws -> [UInt8] {
        let signature = try PublicKeyCall.sign(Self.dataExpression(digest, algorithm), key: keyExpression())
        guard let values = signature.find("ecdsa") else {
            throw CryptoError(.invalidParameter("libgcrypt returned no ECDSA signature"))
        }
        let r = try values.publicValue("r")
        let s = try values.publicValue("s")
        return try DERIntegers.encode(public: [r, s])
    }

    /// The ECDH shared secret with `peer`: the X coordinate of scalar × peer point, in secure memory. For the NIST
    /// curves the cofactor is 1, so cofactor ECDH gives the same value.
    /// - Throws: ``CryptoError/invalidPublicKey`` when `peer` is on another curve.
    public func sharedSecret(with peer: ECPublicKey) throws -> SecretBytes {
        guard peer.curve == publicKey.curve else { throw CryptoError.invalidPublicKey }
        return try CurveContext(publicKey.curve).multiply(scalar, point: peer.x963).x
    }

    private func keyExpression() throws -> SExpression {
        var builder = SExpressionBuilder()
        builder.open("private-key")
        builder.open("ecc")
        builder.pair("curve", publicKey.curve.gcryptName)
        builder.pair("q", publicKey.x963)
        builder.secretNumber("d", scalar)
        builder.close()
        builder.close()
        return try builder.sexp()
    }

    /// `(data(flags raw)(hash algo digest))`: libgcrypt takes the digest as an opaque bit string and truncates it
    /// to the order's length itself.
    static func dataExpression(_ digest: [UInt8], _ algorithm: DigestAlgorithm) throws -> SExpression {
        guard !digest.isEmpty else { throw CryptoError(.invalidParameter("empty digest")) }
        var builder = SExpressionBuilder()
        builder.open("data")
        builder.pair("flags", "raw")
        builder.open("hash")
        builder.pieceAtom(algorithm.sexpName)
        builder.pieceAtom(digest)
        builder.close()
        builder.close()
        return try builder.sexp()
    }
}

// SPDX-License-Identifier: Apache-2.0
// Point arithmetic on a NIST curve through libgcrypt's EC context: on-curve checks, scalar multiplication.

internal import CGcrypt

/// A `gcry_ctx_t` for one named curve, released by `deinit`.
///
/// ECDH and the private-key consistency check multiply a secret scalar by a point. The scalar is a secure MPI
/// and the resulting coordinate is written to secure memory; the projective product itself lives in libgcrypt's
/// own memory for the duration of the call, and libgcrypt wipes MPI limbs when it frees them.
struct CurveContext: ~Copyable {
    private let raw: gcry_ctx_t
    let curve: EllipticCurve

    /// The corresponding C function is `gcry_mpi_ec_new`.
    init(_ curve: EllipticCurve) throws {
        try SecretCrypto.ensureInitialized()
        var context: gcry_ctx_t?
        try LibgcryptError.check(gcry_mpi_ec_new(&context, nil, curve.gcryptName), "gcry_mpi_ec_new")
        guard let context else { throw CryptoError.library(code: -1, source: "gcry_mpi_ec_new") }
        raw = context
        self.curve = curve
    }

    deinit {
        gcry_ctx_release(raw)
    }

    /// Whether the X9.63 uncompressed point `04‖X‖Y` has coordinates below the field prime and lies on the curve.
    ///
    /// The corresponding C functions are `gcry_mpi_point_set` and `gcry_mpi_ec_curve_point`.
    func contains(_ x963: [UInt8]) -> Bool {
        guard let point = try? makePoint(x963) else { return false }
        defer { gcry_mpi_point_release(point) }
        return gcry_mpi_ec_curve_point(point, raw) != 0
    }

    /// `scalar × point`: the affine X coordinate, and Y when asked, right-aligned to the coordinate length. With
    /// `point` nil the base point is used.
    /// - Throws: ``CryptoError/invalidPublicKey`` for a point off the curve or a product at infinity.
    ///
    /// The corresponding C functions are `gcry_mpi_ec_get_point`, `gcry_mpi_ec_mul` and `gcry_mpi_ec_get_affine`.
    func multiply(_ scalar: SecretBytes, point x963: [UInt8]?) throws -> (x: SecretBytes, y: [UInt8]) {
        let base: gcry_mpi_point_t
        if let x963 {
            base = try makePoint(x963)
        } else {
            guard let generator = gcry_mpi_ec_get_point("g", raw, 1) else {
                throw CryptoError.library(code: -1, source: "gcry_mpi_ec_get_point")
            }
            base = generator
        }
        defer { gcry_mpi_point_release(base) }
        guard gcry_mpi_ec_curve_point(base, raw) != 0 else { throw CryptoError.invalidPublicKey }
        let multiplier = try MPI(unsignedBigEndian: scalar)
        guard let product = gcry_mpi_point_new(0) else { throw CryptoError.library(code: -1, source: "gcry_mpi_point_new") }
        defer { gcry_mpi_point_release(product) }
        gcry_mpi_ec_mul(product, multiplier.raw, base, raw)
        let x = MPI(resultIn: true)
        let y = MPI(resultIn: true)
        guard gcry_mpi_ec_get_affine(x.raw, y.raw, product, raw) == 0 else { throw CryptoError.invalidPublicKey }
        let length = curve.coordinateByteCount
        let xBytes = try SecretBytes(count: length)
        try xBytes.withUnsafeMutableBytes { try x.writeUnsignedBigEndian(rightAlignedInto: $0) }
        var yBytes = [UInt8](repeating: 0, count: length)
        try yBytes.withUnsafeMutableBytes { try y.writeUnsignedBigEndian(rightAlignedInto: $0) }
        return (xBytes, yBytes)
    }

    /// Whether `scalar` is in 1..<n, the range of valid private keys.
    ///
    /// The corresponding C function is `gcry_mpi_ec_get_mpi` (`n`).
    func isValidScalar(_ scalar: SecretBytes) throws -> Bool {
        guard let order = gcry_mpi_ec_get_mpi("n", raw, 1) else {
            throw CryptoError.library(code: -1, source: "gcry_mpi_ec_get_mpi")
        }
        let n = MPI(adopting: order)
        let value = try MPI(unsignedBigEndian: scalar)
        return value.compare(to: 0) > 0 && value.compare(to: n) < 0
    }

    private func makePoint(_ x963: [UInt8]) throws -> gcry_mpi_point_t {
        let length = curve.coordinateByteCount
        guard x963.count == 1 + 2 * length, x963[0] == 0x04 else { throw CryptoError.invalidPublicKey }
        let x = try MPI(unsignedBigEndian: Array(x963[1...length]))
        let y = try MPI(unsignedBigEndian: Array(x963[(1 + length)...]))
        // Coordinates must be field elements: a value ≥ p would name the same point as its residue, giving one
        // key two encodings.
        guard let fieldPrime = gcry_mpi_ec_get_mpi("p", raw, 1) else {
            throw CryptoError.library(code: -1, source: "gcry_mpi_ec_get_mpi")
        }
        let p = MPI(adopting: fieldPrime)
        guard x.compare(to: p) < 0, y.compare(to: p) < 0 else { throw CryptoError.invalidPublicKey }
        let z = MPI(1)
        guard let point = gcry_mpi_point_new(0) else { throw CryptoError.library(code: -1, source: "gcry_mpi_point_new") }
        gcry_mpi_point_set(point, x.raw, y.raw, z.raw)
        return point
    }
}

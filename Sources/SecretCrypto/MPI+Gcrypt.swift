// SPDX-License-Identifier: Apache-2.0
// An owned libgcrypt multi-precision integer, released when it goes out of scope.

internal import CGcrypt

/// A `gcry_mpi_t` owned by Swift; `deinit` releases it (libgcrypt wipes secure MPIs on release).
struct MPI: ~Copyable {
    let raw: gcry_mpi_t

    /// Creates the value `value`.
    /// - Parameter value: A small non-negative value.
    ///
    /// The corresponding C function is `gcry_mpi_set_ui`.
    init(_ value: UInt) {
        raw = gcry_mpi_set_ui(nil, value)
    }

    /// Creates an empty MPI for a result, in secure memory when `secure` is set.
    /// - Parameter secure: Whether the limbs must live in secure memory.
    ///
    /// The corresponding C functions are `gcry_mpi_new` and `gcry_mpi_snew`.
    init(resultIn secure: Bool) {
        raw = secure ? gcry_mpi_snew(0) : gcry_mpi_new(0)
    }

    /// Parses an unsigned big-endian secret; the MPI lives in secure memory because the bytes do.
    /// - Parameter bytes: The big-endian magnitude (may be empty, meaning 0).
    /// - Throws: ``CryptoError`` if libgcrypt fails.
    ///
    /// The corresponding C function is `gcry_mpi_scan` (with `GCRYMPI_FMT_USG`).
    init(unsignedBigEndian bytes: SecretBytes) throws {
        raw = try bytes.withUnsafeBytes { try Self.scan($0) }
    }

    /// Parses an unsigned big-endian public value.
    /// - Parameter bytes: The big-endian magnitude (may be empty, meaning 0).
    /// - Throws: ``CryptoError`` if libgcrypt fails.
    ///
    /// The corresponding C function is `gcry_mpi_scan`.
    init(unsignedBigEndian bytes: [UInt8]) throws {
        raw = try bytes.withUnsafeBytes { try Self.scan($0) }
    }

    /// Takes ownership of an MPI a libgcrypt function returned.
    init(adopting raw: gcry_mpi_t) {
        self.raw = raw
    }

    private static func scan(_ bytes: UnsafeRawBufferPointer) throws -> gcry_mpi_t {
        var scanned: gcry_mpi_t?
        // libgcrypt reads nothing for length 0, but wants a non-NULL pointer.
        let error = withUnsafeTemporaryAllocation(byteCount: 1, alignment: 1) { fallback in
            cgcry_mpi_scan_unsigned(&scanned, bytes.baseAddress ?? UnsafeRawPointer(fallback.baseAddress!), bytes.count)
        }
        try LibgcryptError.check(error, "gcry_mpi_scan")
        guard let scanned else { throw CryptoError.library(code: -1, source: "gcry_mpi_scan") }
        return scanned
    }

    deinit {
        gcry_mpi_release(raw)
    }

    // MARK: - Queries

    /// The number of significant bits.
    ///
    /// The corresponding C function is `gcry_mpi_get_nbits`.
    var bitCount: Int { Int(gcry_mpi_get_nbits(raw)) }

    /// The number of bytes of the minimal big-endian encoding.
    var byteCount: Int { (bitCount + 7) / 8 }

    /// Whether the limbs live in secure memory.
    ///
    /// The corresponding C function is `gcry_mpi_get_flag`.
    var isSecure: Bool { cgcry_mpi_is_secure(raw) != 0 }

    /// Compares with another MPI (negative, zero, positive).
    ///
    /// The corresponding C function is `gcry_mpi_cmp`.
    func compare(to other: borrowing MPI) -> Int32 { gcry_mpi_cmp(raw, other.raw) }

    /// Compares with a small value.
    ///
    /// The corresponding C function is `gcry_mpi_cmp_ui`.
    func compare(to value: UInt) -> Int32 { gcry_mpi_cmp_ui(raw, value) }

    // MARK: - Arithmetic

    /// Returns `self - value`.
    ///
    /// The corresponding C function is `gcry_mpi_sub_ui`.
    func subtracting(_ value: UInt) -> MPI {
        let result = MPI(resultIn: false)
        gcry_mpi_sub_ui(result.raw, raw, value)
        return result
    }

    /// Returns `self ^ exponent mod modulus`, in secure memory when `secure` is set.
    ///
    /// The corresponding C function is `gcry_mpi_powm`.
    func power(_ exponent: borrowing MPI, modulus: borrowing MPI, secure: Bool) -> MPI {
        let result = MPI(resultIn: secure)
        gcry_mpi_powm(result.raw, raw, exponent.raw, modulus.raw)
        return result
    }

    /// Returns `self × other`, in secure memory when `secure` is set.
    ///
    /// The corresponding C function is `gcry_mpi_mul`.
    func multiplied(by other: borrowing MPI, secure: Bool) -> MPI {
        let result = MPI(resultIn: secure)
        gcry_mpi_mul(result.raw, raw, other.raw)
        return result
    }

    /// Returns `self mod modulus`, in secure memory when `secure` is set.
    ///
    /// The corresponding C function is `gcry_mpi_mod`.
    func modulo(_ modulus: borrowing MPI, secure: Bool) -> MPI {
        let result = MPI(resultIn: secure)
        gcry_mpi_mod(result.raw, raw, modulus.raw)
        return result
    }

    // MARK: - Serialisation

    /// Writes the minimal unsigned big-endian encoding right-aligned into `output` (leading bytes zeroed).
    /// - Parameter output: A buffer of at least ``byteCount`` bytes.
    /// - Throws: ``CryptoError`` if the value does not fit or libgcrypt fails.
    ///
    /// The corresponding C function is `gcry_mpi_print` (with `GCRYMPI_FMT_USG`).
    func writeUnsignedBigEndian(rightAlignedInto output: UnsafeMutableRawBufferPointer) throws {
        let length = byteCount
        guard length <= output.count else { throw CryptoError.library(code: -1, source: "gcry_mpi_print") }
        let padding = output.count - length
        if padding > 0 { cgcry_wipe(output.baseAddress, padding) }
        guard length > 0 else { return }
        var written = 0
        try LibgcryptError.check(
            cgcry_mpi_print_unsigned(output.baseAddress! + padding, length, &written, raw), "gcry_mpi_print")
        guard written == length else { throw CryptoError.library(code: -1, source: "gcry_mpi_print") }
    }

    /// The minimal unsigned big-endian encoding, for public values.
    func unsignedBigEndianBytes() throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: byteCount)
        try bytes.withUnsafeMutableBytes { try writeUnsignedBigEndian(rightAlignedInto: $0) }
        return bytes
    }
}

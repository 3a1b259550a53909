// SPDX-License-Identifier: Apache-2.0
// libgcrypt S-expressions: built in canonical form in secure memory, owned while in use, read by token.

internal import CGcrypt

/// A `gcry_sexp_t` owned by Swift; `deinit` releases it (libgcrypt wipes S-expressions in secure memory).
///
/// Private keys travel to and from libgcrypt's public-key functions only as S-expressions; these are parsed from a
/// canonical buffer in secure memory, which makes libgcrypt allocate the S-expression in secure memory too.
struct SExpression: ~Copyable {
    let raw: gcry_sexp_t

    /// Parses a canonical S-expression.
    /// - Throws: ``CryptoError`` if libgcrypt refuses the text.
    ///
    /// The corresponding C function is `gcry_sexp_new` (canonical form, copied).
    init(canonical text: SecretBytes) throws {
        var parsed: gcry_sexp_t?
        let error = text.withUnsafeBytes { gcry_sexp_new(&parsed, $0.baseAddress, $0.count, 0) }
        try LibgcryptError.checkSecureOpen(error, "gcry_sexp_new")
        guard let parsed else { throw CryptoError.library(code: -1, source: "gcry_sexp_new") }
        raw = parsed
    }

    /// Takes ownership of an S-expression a libgcrypt function returned.
    init(taking raw: gcry_sexp_t) {
        self.raw = raw
    }

    deinit {
        gcry_sexp_release(raw)
    }

    /// Whether libgcrypt placed the S-expression in secure memory; tests check the claim above with it.
    ///
    /// The corresponding C function is `gcry_is_secure`.
    var isInSecureMemory: Bool { gcry_is_secure(UnsafeRawPointer(raw)) != 0 }

    /// The first sub-list whose head is `token`.
    ///
    /// The corresponding C function is `gcry_sexp_find_token`.
    func find(_ token: String) -> SExpression? {
        guard let found = gcry_sexp_find_token(raw, token, 0) else { return nil }
        return SExpression(taking: found)
    }

    /// Calls `body` with the bytes of the atom at `index` of this list (index 1 is the value after the head).
    /// - Throws: ``CryptoError/invalidParameter`` when there is no such atom.
    ///
    /// The corresponding C function is `gcry_sexp_nth_data`.
    func withAtom<R>(at index: Int32, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        var length = 0
        guard let data = gcry_sexp_nth_data(raw, index, &length) else {
            throw CryptoError(.invalidParameter("libgcrypt returned an S-expression without the expected value"))
        }
        return try body(UnsafeRawBufferPointer(start: data, count: length))
    }

    /// The atom after the head of the sub-list `token`, as a public value.
    func publicValue(_ token: String) throws -> [UInt8] {
        guard let list = find(token) else {
            throw CryptoError(.invalidParameter("libgcrypt returned an S-expression without \(token)"))
        }
        return try list.withAtom(at: 1) { [UInt8]($0) }
    }

    /// The atom after the head of the sub-list `token`, as an unsigned number right-aligned into `length` bytes of
    /// secure memory (libgcrypt prints numbers without their leading zero bytes, and sometimes with a sign byte).
    func secretValue(_ token: String, length: Int) throws -> SecretBytes {
        guard let list = find(token) else {
            throw CryptoError(.invalidParameter("libgcrypt returned an S-expression without \(token)"))
        }
        return try list.withAtom(at: 1) { atom in
            let significant = UnsafeRawBufferPointer(rebasing: atom[(atom.firstIndex { $0 != 0 } ?? atom.count)...])
            guard significant.count <= length else {
                throw CryptoError(.invalidParameter("a value from libgcrypt is longer than its field"))
            }
            let result = try SecretBytes(count: length)
            result.withUnsafeMutableBytes { output in
                if let base = significant.baseAddress, significant.count > 0 {
                    (output.baseAddress! + (length - significant.count)).copyMemory(from: base, byteCount: significant.count)
                }
            }
            return result
        }
    }
}

/// Builds a canonical S-expression (`(3:rsa(1:n3:…))`), keeping secret atoms in secure memory until the text is
/// assembled there.
struct SExpressionBuilder {
    private enum Piece {
        case text([UInt8])
        case secret(SecretBytes, leadingZero: Bool)
    }

    private var pieces: [Piece] = []

    init() {}

    /// Opens a list.
    mutating func open(_ head: String) {
        pieces.append(.text(Array("(".utf8) + Self.atom(Array(head.utf8))))
    }

    /// Closes the innermost list.
    mutating func close() {
        pieces.append(.text(Array(")".utf8)))
    }

    /// A list of a head and one public atom: `(head value)`.
    mutating func pair(_ head: String, _ value: [UInt8]) {
        pieces.append(.text(Array("(".utf8) + Self.atom(Array(head.utf8)) + Self.atom(value) + Array(")".utf8)))
    }

    /// A list of a head and one public text atom: `(hash-algo sha256)`.
    mutating func pair(_ head: String, _ value: String) {
        pair(head, Array(value.utf8))
    }

    /// A list of a head and one unsigned number, given as big-endian bytes: a zero byte goes in front when the top
    /// bit is set, so libgcrypt reads the same positive value whether it parses the atom as signed or unsigned.
    mutating func number(_ head: String, _ value: [UInt8]) {
        let trimmed = Array(value.drop { $0 == 0 })
        pair(head, (trimmed.first ?? 0x80) >= 0x80 ? [0] + trimmed : trimmed)
    }

    /// As ``number(_:_:)`` for a secret number (a private exponent, prime or scalar).
    mutating func secretNumber(_ head: String, _ value: SecretBytes) {
        let topBitSet = value.withUnsafeBytes { ($0.first ?? 0x80) >= 0x80 }
        pieces.append(.text(Array("(".utf8) + Self.atom(Array(head.utf8))))
        pieces.append(.secret(value, leadingZero: topBitSet))
        pieces.append(.text(Array(")".utf8)))
    }

    /// A bare atom inside the current list.
    mutating func pieceAtom(_ value: [UInt8]) {
        pieces.append(.text(Self.atom(value)))
    }

    /// A bare text atom inside the current list.
    mutating func pieceAtom(_ value: String) {
        pieceAtom(Array(value.utf8))
    }

    /// A list of a head and one secret byte string taken as is (a plaintext to encrypt).
    mutating func secretPair(_ head: String, _ value: SecretBytes) {
        pieces.append(.text(Array("(".utf8) + Self.atom(Array(head.utf8))))
        pieces.append(.secret(value, leadingZero: false))
        pieces.append(.text(Array(")".utf8)))
    }

    /// The canonical text, in secure memory.
    func build() throws -> SecretBytes {
        var total = 0
        for piece in pieces {
            switch piece {
            case .text(let bytes): total += bytes.count
            case .secret(let value, let zero):
                let length = value.count + (zero ? 1 : 0)
                total += String(length).utf8.count + 1 + length
            }
        }
        let text = try SecretBytes(count: total)
        text.withUnsafeMutableBytes { output in
            var offset = 0
            func put(_ bytes: UnsafeRawBufferPointer) {
                guard let base = bytes.baseAddress, bytes.count > 0 else { return }
                (output.baseAddress! + offset).copyMemory(from: base, byteCount: bytes.count)
                offset += bytes.count
            }
            for piece in pieces {
                switch piece {
                case .text(let bytes): bytes.withUnsafeBytes { put($0) }
                case .secret(let value, let zero):
                    let prefix = Array("\(value.count + (zero ? 1 : 0)):".utf8) + (zero ? [0] : [])
                    prefix.withUnsafeBytes { put($0) }
                    value.withUnsafeBytes { put($0) }
                }
            }
        }
        return text
    }

    /// Parses the built text.
    func sexp() throws -> SExpression {
        try SExpression(canonical: build())
    }

    private static func atom(_ bytes: [UInt8]) -> [UInt8] {
        Array("\(bytes.count):".utf8) + bytes
    }
}

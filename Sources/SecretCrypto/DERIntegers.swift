// SPDX-License-Identifier: Apache-2.0
// The one DER shape public-key formats here need: a SEQUENCE of INTEGERs (PKCS#1 keys, X9.62 ECDSA signatures).

/// Reads and writes `SEQUENCE { INTEGER … }` without copying the integers out of secure memory.
enum DERIntegers {
    /// The content ranges (big-endian, possibly with a leading zero byte) of the integers in `der`.
    /// - Throws: ``CryptoError/invalidParameter`` for anything but one definite-length SEQUENCE of INTEGERs.
    static func ranges(in der: UnsafeRawBufferPointer) throws -> [Range<Int>] {
        var offset = 0
        func header(_ expectedTag: UInt8) throws -> Range<Int> {
            guard offset + 2 <= der.count, der[offset] == expectedTag else { throw malformed }
            var length = Int(der[offset + 1])
            offset += 2
            if length >= 0x80 {
                let octets = length & 0x7f
                guard (1...3).contains(octets), offset + octets <= der.count, der[offset] != 0 else { throw malformed }
                length = 0
                for _ in 0..<octets {
                    length = length << 8 | Int(der[offset])
                    offset += 1
                }
                guard length >= 0x80 else { throw malformed }
            }
            guard offset + length <= der.count else { throw malformed }
            defer { offset += length }
            return offset..<(offset + length)
        }
        let sequence = try header(0x30)
        guard sequence.upperBound == der.count else { throw malformed }
        offset = sequence.lowerBound
        var integers: [Range<Int>] = []
        while offset < sequence.upperBound {
            let integer = try header(0x02)
            // Positive and minimal: no sign bit, no redundant leading zero.
            guard let first = integer.first, der[first] < 0x80,
                  integer.count == 1 || der[first] != 0 || der[first + 1] >= 0x80
            else { throw malformed }
            integers.append(integer)
        }
        return integers
    }

    /// `SEQUENCE { INTEGER … }` of unsigned big-endian values, in secure memory.
    static func encode(_ integers: [SecretBytes]) throws -> SecretBytes {
        let bodies: [(skip: Int, zero: Bool, length: Int)] = integers.map { value in
            value.withUnsafeBytes { bytes in
                let skip = bytes.firstIndex { $0 != 0 } ?? max(bytes.count - 1, 0)
                let zero = bytes.isEmpty || bytes[skip] >= 0x80
                return (skip, zero, bytes.count - skip + (zero ? 1 : 0))
            }
        }
        let content = bodies.reduce(0) { $0 + 1 + lengthOctets($1.length).count + $1.length }
        let total = 1 + lengthOctets(content).count + content
        let output = try SecretBytes(count: total)
        output.withUnsafeMutableBytes { out in
            var offset = 0
            func put(_ bytes: [UInt8]) {
                for byte in bytes {
                    out[offset] = byte
                    offset += 1
                }
            }
            put([0x30] + lengthOctets(content))
            for (value, body) in zip(integers, bodies) {
                put([0x02] + lengthOctets(body.length) + (body.zero ? [0] : []))
                value.withUnsafeBytes { bytes in
                    for index in body.skip..<bytes.count {
                        out[offset] = bytes[index]
                        offset += 1
                    }
                }
            }
        }
        return output
    }

    /// `SEQUENCE { INTEGER … }` of public values.
    static func encode(public integers: [[UInt8]]) throws -> [UInt8] {
        try encode(integers.map { try SecretBytes(copying: $0) }).copyBytes()
    }

    private static func lengthOctets(_ length: Int) -> [UInt8] {
        guard length >= 0x80 else { return [UInt8(length)] }
        var octets: [UInt8] = []
        var rest = length
        while rest > 0 {
            octets.insert(UInt8(rest & 0xff), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(octets.count)] + octets
    }

    private static var malformed: CryptoError { CryptoError(.invalidParameter("malformed DER")) }
}

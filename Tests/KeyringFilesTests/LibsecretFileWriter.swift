// SPDX-License-Identifier: Apache-2.0
// Writes libsecret/oo7 file keyrings (format 1) from the format facts, for cases libsecret's own writer does not
// produce (oo7's content-type attribute, hostile item bodies that still pass their MAC).

import SecretCrypto

/// A GVariant value to serialize (little-endian, normal form), for the types the file format uses.
indirect enum GVariantOut {
    case uint32(UInt32)
    case uint64(UInt64)
    case string(String)
    case bytes([UInt8])
    /// An array of variable-size elements (strings, tuples, dict entries).
    case array([GVariantOut])
    /// A tuple or dict entry; `alignment` is the largest member alignment.
    case tuple([GVariantOut])

    var alignment: Int {
        switch self {
        case .uint32: return 4
        case .uint64: return 8
        case .string, .bytes: return 1
        case .array(let elements): return elements.map(\.alignment).max() ?? 1
        case .tuple(let members): return members.map(\.alignment).max() ?? 1
        }
    }

    var isFixedSize: Bool {
        switch self {
        case .uint32, .uint64: return true
        default: return false
        }
    }

    func serialized() -> [UInt8] {
        switch self {
        case .uint32(let value): return withUnsafeBytes(of: value.littleEndian) { Array($0) }
        case .uint64(let value): return withUnsafeBytes(of: value.littleEndian) { Array($0) }
        case .string(let text): return Array(text.utf8) + [0]
        case .bytes(let bytes): return bytes
        case .array(let elements):
            var body: [UInt8] = []
            var ends: [Int] = []
            for element in elements {
                while body.count % element.alignment != 0 { body.append(0) }
                body += element.serialized()
                ends.append(body.count)
            }
            return Self.framed(body, ends)
        case .tuple(let members):
            var body: [UInt8] = []
            var ends: [Int] = []
            for (index, member) in members.enumerated() {
                while body.count % member.alignment != 0 { body.append(0) }
                body += member.serialized()
                if !member.isFixedSize && index < members.count - 1 { ends.append(body.count) }
            }
            return Self.framed(body, ends.reversed())
        }
    }

    /// Appends framing offsets of the smallest size that can address the whole container.
    private static func framed(_ body: [UInt8], _ offsets: [Int]) -> [UInt8] {
        guard !offsets.isEmpty else { return body }
        let size = [1, 2, 4, 8].first { body.count + offsets.count * $0 <= (1 << (8 * $0)) - 1 || $0 == 8 }!
        var result = body
        for offset in offsets {
            result += withUnsafeBytes(of: UInt64(offset).littleEndian) { Array($0.prefix(size)) }
        }
        return result
    }
}

struct LibsecretFileWriter {
    struct Item {
        var label: String
        var attributes: [String: String]
        var secret: [UInt8]
    }

    var iterations: UInt32 = 1
    var salt: [UInt8] = Array(repeating: 0x5A, count: 32)
    var items: [Item] = []
    /// Applied to each serialized item before encryption, so tests can damage bodies that still pass the MAC.
    var damage: ((inout [UInt8]) -> Void)?

    func write(password: String) throws -> [UInt8] {
        let key = try PBKDF2SHA256.deriveKey(password: try SecretBytes(copying: Array(password.utf8)), salt: salt,
                                             iterations: Int(iterations), outputByteCount: 16)
        var entries: [GVariantOut] = []
        for item in items {
            let attributes = GVariantOut.array(item.attributes.sorted { $0.key < $1.key }.map {
                .tuple([.string($0.key), .string($0.value)])
            })
            var plaintext = GVariantOut.tuple([
                attributes, .string(item.label), .uint64(1_700_000_000), .uint64(1_700_000_001), .bytes(item.secret),
            ]).serialized()
            damage?(&plaintext)
            let iv = [UInt8](repeating: 0x11, count: 16)
            let ciphertext = try AES128CBC.encrypt(try SecretBytes(copying: plaintext), key: key, iv: iv)
            let mac = try HMACSHA256.authenticationCode(for: ciphertext + iv, key: key)
            let hashed = GVariantOut.array(try item.attributes.sorted { $0.key < $1.key }.map {
                .tuple([.string($0.key), .bytes(try HMACSHA256.authenticationCode(for: Array($0.value.utf8), key: key))])
            })
            entries.append(.tuple([hashed, .bytes(ciphertext + iv + mac)]))
        }
        let body = GVariantOut.tuple([
            .uint32(UInt32(salt.count)), .bytes(salt), .uint32(iterations), .uint64(1_700_000_002), .uint32(0),
            .array(entries),
        ])
        return Array("GnomeKeyring\n\r\0\n".utf8) + [1, 0] + body.serialized()
    }
}

// SPDX-License-Identifier: Apache-2.0
// Writes gnome-keyring binary (version 0) files for the cases gnome-keyring's own clients cannot produce today:
// uint32 attributes, old item types, access lists, NULL strings.

import KeyringFiles
import SecretCrypto

/// Builds a version-0 keyring the way gnome-keyring lays it out (see `GnomeKeyringBinaryFormat`).
struct BinaryKeyringWriter {
    enum Value {
        case string(String?)
        case number(UInt32)
    }

    struct Item {
        var type: UInt32 = 0
        var label: String?
        var secret: [UInt8]?
        var attributes: [(String, Value)] = []
        var accessList: [(UInt32, String?, String?)] = []
    }

    var label: String? = "Hand made"
    var iterations: UInt32 = 1000
    var salt: [UInt8] = [9, 8, 7, 6, 5, 4, 3, 2]
    var items: [Item] = []
    /// Applied to the plaintext block (after the 16 check bytes) before the check is computed: lets tests damage the
    /// encrypted structures while the file still decrypts and passes its MD5 check.
    var damage: ((inout [UInt8]) -> Void)?

    func write(password: String) throws -> [UInt8] {
        var file = Array("GnomeKeyring\n\r\0\n".utf8) + [0, 0, 0, 0]
        Self.put(label, into: &file)
        Self.put64(1_600_000_000, into: &file)
        Self.put64(1_600_000_100, into: &file)
        Self.put32(0, into: &file)
        Self.put32(0, into: &file)
        Self.put32(iterations, into: &file)
        file += salt
        for _ in 0..<4 { Self.put32(0, into: &file) }
        Self.put32(UInt32(items.count), into: &file)
        for (index, item) in items.enumerated() {
            Self.put32(UInt32(index + 1), into: &file)
            Self.put32(item.type, into: &file)
            Self.put32(UInt32(item.attributes.count), into: &file)
            for (name, value) in item.attributes {  // hashed values: their content does not matter to a reader
                Self.put(name, into: &file)
                switch value {
                case .string: Self.put32(0, into: &file); Self.put("0123456789abcdef0123456789abcdef", into: &file)
                case .number(let number): Self.put32(1, into: &file); Self.put32(number ^ 0x1827_3645, into: &file)
                }
            }
        }
        var block = [UInt8](repeating: 0, count: 16)
        for item in items {
            Self.put(item.label, into: &block)
            if let secret = item.secret {
                Self.put32(UInt32(secret.count), into: &block)
                block += secret
            } else {
                Self.put32(0xFFFF_FFFF, into: &block)
            }
            Self.put64(1_600_000_200, into: &block)
            Self.put64(1_600_000_300, into: &block)
            Self.put(nil, into: &block)
            for _ in 0..<4 { Self.put32(0, into: &block) }
            Self.put32(UInt32(item.attributes.count), into: &block)
            for (name, value) in item.attributes {
                Self.put(name, into: &block)
                switch value {
                case .string(let text): Self.put32(0, into: &block); Self.put(text, into: &block)
                case .number(let number): Self.put32(1, into: &block); Self.put32(number, into: &block)
                }
            }
            Self.put32(UInt32(item.accessList.count), into: &block)
            for (types, name, path) in item.accessList {
                Self.put32(types, into: &block)
                Self.put(name, into: &block)
                Self.put(path, into: &block)
                Self.put(nil, into: &block)
                Self.put32(0, into: &block)
            }
        }
        if let damage {
            var body = Array(block[16...])
            damage(&body)
            block = Array(block[..<16]) + body
        }
        while block.count % 16 != 0 || block.count == 16 { block.append(0) }
        let plaintext = try SecretBytes(copying: block)
        let check = try MessageDigest.md5(of: plaintext, range: 16..<block.count)
        plaintext.withUnsafeMutableBytes { for index in 0..<16 { $0[index] = check[index] } }
        let digest = try IteratedSHA256.derive(password: try SecretBytes(copying: Array(password.utf8)), salt: salt,
                                               iterations: Int(iterations))
        let encrypted = try AES128CBC.encryptBlocks(plaintext, key: digest.copying(0..<16), iv: digest.copying(16..<32))
        Self.put32(UInt32(encrypted.count), into: &file)
        return file + encrypted
    }

    static func put32(_ value: UInt32, into bytes: inout [UInt8]) {
        bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func put64(_ value: UInt64, into bytes: inout [UInt8]) {
        put32(UInt32(value >> 32), into: &bytes)
        put32(UInt32(value & 0xFFFF_FFFF), into: &bytes)
    }

    static func put(_ string: String?, into bytes: inout [UInt8]) {
        guard let string else { return put32(0xFFFF_FFFF, into: &bytes) }
        put32(UInt32(string.utf8.count), into: &bytes)
        bytes += Array(string.utf8)
    }
}

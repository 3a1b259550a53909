// SPDX-License-Identifier: Apache-2.0
// Recovery keys: 160 random bits shown once as eight groups of four base32 letters, and read back from what was typed.

#if canImport(Glibc)
import Glibc
#endif
import SecretCrypto

/// The typeable form of a recovery key: RFC 4648 base32 (letters and the digits 2-7, no 0/1/8/9 to confuse), in
/// groups of four joined by `-`. Reading ignores case, spaces and dashes. Both directions stay in secure memory.
enum RecoveryKey {
    /// 160 bits: beyond guessing, so the slot needs no key stretching, and still short enough to type.
    static let byteCount = 20
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)
    static let characterCount = byteCount * 8 / 5
    static let groupSize = 4

    static func generate() throws -> SecretBytes { try SecureRandom.secretBytes(count: byteCount) }

    /// The printable form, `XXXX-XXXX-…`.
    static func encode(_ key: SecretBytes) throws -> SecretBytes {
        let groups = characterCount / groupSize
        let text = try SecretBytes(count: characterCount + groups - 1)
        key.withUnsafeBytes { bytes in
            text.withUnsafeMutableBytes { out in
                var position = 0
                for index in 0..<characterCount {
                    let bit = index * 5
                    var value = Int(bytes[bit / 8]) << 8
                    if bit / 8 + 1 < bytes.count { value |= Int(bytes[bit / 8 + 1]) }
                    let symbol = (value >> (11 - bit % 8)) & 31
                    if index > 0 && index % groupSize == 0 {
                        out[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    out[position] = alphabet[symbol]
                    position += 1
                }
            }
        }
        return text
    }

    /// The key a typed recovery key stands for, or `nil` when it is not one (wrong length or letters).
    static func decode(_ typed: SecretBytes) throws -> SecretBytes? {
        let key = try SecretBytes(count: byteCount)
        let valid = typed.withUnsafeBytes { text in
            key.withUnsafeMutableBytes { out in
                var bits = 0
                var count = 0
                var accumulator = 0
                for character in text {
                    if character == UInt8(ascii: "-") || character == UInt8(ascii: " ") { continue }
                    let upper = character >= UInt8(ascii: "a") && character <= UInt8(ascii: "z") ? character - 32 : character
                    guard let symbol = alphabet.firstIndex(of: upper), count < characterCount else { return false }
                    accumulator = (accumulator << 5 | symbol) & 0xFFF
                    bits += 5
                    count += 1
                    if bits >= 8 {
                        bits -= 8
                        out[(count * 5 - bits) / 8 - 1] = UInt8((accumulator >> bits) & 0xFF)
                    }
                }
                return count == characterCount
            }
        }
        return valid ? key : nil
    }

    /// Writes the printable form and a newline to stdout straight from secure memory.
    static func print(_ key: SecretBytes) throws {
        let text = try encode(key)
        text.withUnsafeBytes { _ = write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        _ = write(STDOUT_FILENO, "\n", 1)
    }
}

// SPDX-License-Identifier: Apache-2.0
// libsecret's (and oo7's) file keyring, format version 1: a GVariant body with per-item AES-CBC + HMAC-SHA256.

public import SecretCrypto

/// Reads the file keyrings libsecret's file backend and oo7 write (`~/.local/share/keyrings/*.keyring` inside
/// sandboxes, or wherever `SECRET_FILE_TEST_PATH` points).
///
/// After the 16-byte magic come the version bytes 1, 0 and a little-endian GVariant of type
/// `(uayutua(a{say}ay))`: salt length, salt, PBKDF2 iteration count, modification time, usage count, and the items.
/// The key is PBKDF2-HMAC-SHA256 over the password and salt, 16 bytes long (libsecret uses AES-128, not AES-256).
/// Each item is a pair of hashed attributes (an HMAC per value, for searching) and a blob
/// `ciphertext ‖ IV(16) ‖ HMAC-SHA256(key, ciphertext ‖ IV)(32)`; the ciphertext is AES-128-CBC with PKCS#7
/// padding over a GVariant `(a{ss}sttay)`: attributes, label, created, modified, secret.
public enum LibsecretFileFormat {
    private static let bodyType = GVariantType.tuple([
        .uint32, .array(.byte), .uint32, .uint64, .uint32,
        .array(.tuple([.array(.dictEntry(.string, .array(.byte))), .array(.byte)])),
    ])
    private static let itemType = GVariantType.tuple([
        .array(.dictEntry(.string, .string)), .string, .uint64, .uint64, .array(.byte),
    ])
    private static let keyByteCount = 16
    /// The attribute oo7 keeps an item's content type in.
    static let contentTypeAttribute = "xdg:content-type"
    private static let macByteCount = HMACSHA256.byteCount

    /// Whether `bytes` start like a version-1 file keyring.
    public static func matches(_ bytes: [UInt8]) -> Bool {
        let magic = GnomeKeyringBinaryFormat.magic
        return bytes.count >= magic.count + 2 && bytes.starts(with: magic) && bytes[16] == 1 && bytes[17] == 0
    }

    /// Parses a file keyring and decrypts its items.
    /// - Parameters:
    ///   - bytes: the whole file.
    ///   - password: the keyring password (libsecret requires a non-empty one).
    ///   - limits: bounds on the PBKDF2 iterations and the number of items.
    /// - Returns: the keyring with every item's secret.
    /// - Throws: ``KeyringFileError``: `.unrecognizedFormat` / `.unsupportedVersion` for other files,
    ///   `.passwordRequired` for a missing or empty password, `.wrongPassword` when the first item's MAC does not
    ///   verify, `.malformed` for damaged GVariant data or a later item that fails its MAC, `.limitExceeded`.
    public static func parse(_ bytes: [UInt8], password: SecretBytes?, limits: ParseLimits = .default) throws
        -> ImportedKeyring {
        let magic = GnomeKeyringBinaryFormat.magic
        guard bytes.count >= magic.count, bytes.starts(with: magic) else { throw KeyringFileError.unrecognizedFormat }
        guard bytes.count >= magic.count + 2 else { throw KeyringFileError.truncated("the version") }
        guard bytes[16] == 1, bytes[17] == 0 else {
            throw KeyringFileError.unsupportedVersion("\(bytes[16]).\(bytes[17]) (the file keyring format is 1.0)")
        }
        let body = Array(bytes[(magic.count + 2)...])
        return try body.withUnsafeBytes { raw in
            let reader = GVariantReader(bytes: raw)
            guard case .tuple(let fields) = try reader.decode(bodyType, 0..<raw.count),
                  case .uint32(let saltLength) = fields[0], case .bytes(let salt) = fields[1],
                  case .uint32(let iterations) = fields[2], case .uint64(let modified) = fields[3],
                  case .array(let entries) = fields[5]
            else { throw KeyringFileError.malformed("the file body has the wrong shape") }
            guard Int(saltLength) == salt.count, !salt.isEmpty else {
                throw KeyringFileError.malformed("the salt length does not match the salt")
            }
            try limits.checkIterations(Int(iterations))
            try limits.checkItems(entries.count)
            guard let password, !password.isEmpty else { throw KeyringFileError.passwordRequired }
            let key = try PBKDF2SHA256.deriveKey(password: password, salt: Array(raw[salt]),
                                                 iterations: Int(iterations), outputByteCount: keyByteCount)
            var items: [ImportedItem] = []
            for (index, entry) in entries.enumerated() {
                guard case .tuple(let pair) = entry, case .bytes(let blob) = pair[1] else {
                    throw KeyringFileError.malformed("an item has the wrong shape")
                }
                items.append(try item(UnsafeRawBufferPointer(rebasing: raw[blob]), key: key, isFirst: index == 0))
            }
            return ImportedKeyring(format: .libsecretFile, label: nil, modified: modified, items: items)
        }
    }

    private static func item(_ blob: UnsafeRawBufferPointer, key: SecretBytes, isFirst: Bool) throws -> ImportedItem {
        let blockSize = AES128CBC.blockSize
        guard blob.count >= blockSize + blockSize + macByteCount,
              (blob.count - blockSize - macByteCount) % blockSize == 0
        else { throw KeyringFileError.malformed("an encrypted item has an invalid length") }
        let authenticated = Array(blob[0..<(blob.count - macByteCount)])
        let mac = try HMACSHA256.authenticationCode(for: authenticated, key: key)
        guard ConstantTime.equal(mac, Array(blob[(blob.count - macByteCount)...])) else {
            // Every item shares the key, so a first item that fails means the password; a later one, damage.
            throw isFirst ? KeyringFileError.wrongPassword : KeyringFileError.malformed("an item fails its MAC check")
        }
        let ciphertextLength = authenticated.count - blockSize
        let plaintext: SecretBytes
        do {
            plaintext = try AES128CBC.decrypt(Array(authenticated[0..<ciphertextLength]), key: key,
                                              iv: Array(authenticated[ciphertextLength...]))
        } catch let error as CryptoError where error == .invalidPadding {
            throw KeyringFileError.malformed("an item's padding is invalid")
        }
        return try plaintext.withUnsafeBytes { raw in
            let reader = GVariantReader(bytes: raw)
            guard case .tuple(let fields) = try reader.decode(itemType, 0..<raw.count),
                  case .array(let pairs) = fields[0], case .string(let label) = fields[1],
                  case .uint64(let created) = fields[2], case .uint64(let modified) = fields[3],
                  case .bytes(let secret) = fields[4]
            else { throw KeyringFileError.malformed("an item has the wrong shape") }
            var attributes: [String: String] = [:]
            for pair in pairs {
                guard case .tuple(let entry) = pair, case .string(let name) = entry[0], case .string(let value) = entry[1]
                else { throw KeyringFileError.malformed("an attribute has the wrong shape") }
                attributes[name] = value
            }
            // oo7 records the content type as an attribute; libsecret records none.
            return ImportedItem(label: label, attributes: attributes,
                                secret: try SecretBytes.copy(of: UnsafeRawBufferPointer(rebasing: raw[secret])),
                                contentType: attributes[contentTypeAttribute], created: created, modified: modified)
        }
    }
}

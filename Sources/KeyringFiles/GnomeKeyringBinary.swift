// SPDX-License-Identifier: Apache-2.0
// gnome-keyring's encrypted binary keyring format, version 0: header, hashed item index, encrypted item block.

public import SecretCrypto

/// Reads gnome-keyring's binary keyring files (`~/.local/share/keyrings/<name>.keyring`, format version 0).
///
/// Layout (all integers big-endian): the 16-byte magic `"GnomeKeyring\n\r\0\n"`; version bytes major 0, minor 0,
/// crypto 0 (AES), hash 0 (MD5); the keyring's label, ctime and mtime; flags, lock timeout, the KDF iteration count,
/// an 8-byte salt and four reserved words; the item index (id, type and hashed attributes per item); then a length
/// and an AES-128-CBC block. Key and IV are the two halves of ``IteratedSHA256`` over password and salt. The block's
/// first 16 bytes are the MD5 of the rest, which is how a wrong password shows; the rest holds each item's label,
/// secret, times, attributes and access list, zero-padded to the block size.
public enum GnomeKeyringBinaryFormat {
    /// The magic every gnome-keyring and libsecret keyring file starts with.
    static let magic: [UInt8] = Array("GnomeKeyring\n\r\0\n".utf8)

    /// Whether `bytes` start like a version-0 binary keyring (magic followed by major and minor version 0).
    public static func matches(_ bytes: [UInt8]) -> Bool {
        bytes.count >= magic.count + 2 && bytes.starts(with: magic) && bytes[16] == 0 && bytes[17] == 0
    }

    /// Parses a binary keyring file and decrypts its items.
    /// - Parameters:
    ///   - bytes: the whole file.
    ///   - password: the keyring's password (may be empty, which gnome-keyring accepts for this format).
    ///   - limits: bounds on the iteration count and number of items.
    /// - Returns: the keyring with every item's secret.
    /// - Throws: ``KeyringFileError``: `.unrecognizedFormat` without the magic, `.unsupportedVersion` for another
    ///   version or algorithm, `.passwordRequired` when `password` is `nil`, `.wrongPassword` when the MD5 check of
    ///   the decrypted block fails, `.truncated` / `.malformed` / `.limitExceeded` for damaged or hostile files.
    public static func parse(_ bytes: [UInt8], password: SecretBytes?, limits: ParseLimits = .default) throws
        -> ImportedKeyring {
        guard bytes.count >= magic.count, bytes.starts(with: magic) else { throw KeyringFileError.unrecognizedFormat }
        return try bytes.withUnsafeBytes { raw in
            var cursor = ByteCursor(raw, offset: magic.count)
            let version = (try cursor.uint8("the version"), try cursor.uint8("the version"))
            let algorithms = (try cursor.uint8("the algorithm bytes"), try cursor.uint8("the algorithm bytes"))
            guard version == (0, 0) else {
                throw KeyringFileError.unsupportedVersion("\(version.0).\(version.1) (only 0.0 is the binary format)")
            }
            guard algorithms == (0, 0) else {
                throw KeyringFileError.unsupportedVersion("cipher \(algorithms.0), hash \(algorithms.1) (only AES/MD5)")
            }
            let header = try readHeader(&cursor, limits: limits)
            let index = try readIndex(&cursor, limits: limits)
            let blockLength = Int(try cursor.uint32("the encrypted block's length"))
            guard blockLength >= 16, blockLength % AES128CBC.blockSize == 0 else {
                throw KeyringFileError.malformed("the encrypted block is \(blockLength) bytes, not a multiple of 16")
            }
            let blockRange = try cursor.range(count: blockLength, "the encrypted block")
            guard let password else { throw KeyringFileError.passwordRequired }
            let block = try decrypt(UnsafeRawBufferPointer(rebasing: raw[blockRange]), password: password,
                                    salt: header.salt, iterations: header.iterations)
            let items = try block.withUnsafeBytes { plaintext in
                var inner = ByteCursor(plaintext, offset: 16)
                return try index.map { entry in try readItem(&inner, type: entry.type) }
            }
            return ImportedKeyring(format: .gnomeKeyringBinary, label: header.label, created: header.created,
                                   modified: header.modified, items: items)
        }
    }

    // MARK: - Clear-text parts

    struct Header {
        var label: String?
        var created: UInt64
        var modified: UInt64
        var iterations: Int
        var salt: [UInt8]
    }

    private static func readHeader(_ cursor: inout ByteCursor, limits: ParseLimits) throws -> Header {
        let label = try cursor.string("the keyring label")
        let created = try cursor.time("the keyring's creation time")
        let modified = try cursor.time("the keyring's modification time")
        _ = try cursor.uint32("the keyring flags")
        _ = try cursor.uint32("the lock timeout")
        let iterations = Int(try cursor.uint32("the iteration count"))
        try limits.checkIterations(iterations)
        let saltRange = try cursor.range(count: 8, "the salt")
        let salt = Array(cursor.bytes[saltRange])
        try cursor.skipUInt32s(4, "the reserved header words")
        return Header(label: label, created: created, modified: modified, iterations: iterations, salt: salt)
    }

    struct IndexEntry {
        var id: UInt32
        var type: UInt32
    }

    /// The clear-text item index; its hashed attributes only serve gnome-keyring's searches while locked, so they
    /// are checked for well-formedness and dropped.
    private static func readIndex(_ cursor: inout ByteCursor, limits: ParseLimits) throws -> [IndexEntry] {
        let count = Int(try cursor.uint32("the item count"))
        try limits.checkItems(count)
        var entries: [IndexEntry] = []
        for _ in 0..<count {
            let id = try cursor.uint32("the item index")
            let type = try cursor.uint32("the item index")
            _ = try readAttributes(&cursor, hashed: true)
            entries.append(IndexEntry(id: id, type: type))
        }
        return entries
    }

    // MARK: - Encrypted part

    private static func decrypt(_ block: UnsafeRawBufferPointer, password: SecretBytes, salt: [UInt8],
                                iterations: Int) throws -> SecretBytes {
        let digest = try IteratedSHA256.derive(password: password, salt: salt, iterations: iterations)
        let plaintext = try AES128CBC.decryptBlocks(block, key: digest.copying(0..<16), iv: digest.copying(16..<32))
        let check = try MessageDigest.md5(of: plaintext, range: 16..<plaintext.count)
        let stored = plaintext.withUnsafeBytes { Array($0[0..<16]) }
        guard ConstantTime.equal(check, stored) else { throw KeyringFileError.wrongPassword }
        return plaintext
    }

    private static func readItem(_ cursor: inout ByteCursor, type: UInt32) throws -> ImportedItem {
        let label = try cursor.string("an item label") ?? ""
        let secretRange = try cursor.byteArray("an item secret")
        let created = try cursor.time("an item's creation time")
        let modified = try cursor.time("an item's modification time")
        _ = try cursor.string("an item's reserved string")
        try cursor.skipUInt32s(4, "an item's reserved words")
        var attributes = try readAttributes(&cursor, hashed: false)
        try skipAccessList(&cursor)
        if attributes[GnomeKeyringItemType.schemaAttribute] == nil, let schema = GnomeKeyringItemType.schema(for: type) {
            attributes[GnomeKeyringItemType.schemaAttribute] = schema
        }
        let secret = try SecretBytes.copy(of: UnsafeRawBufferPointer(rebasing: cursor.bytes[secretRange ?? 0..<0]))
        return ImportedItem(label: label, attributes: attributes, secret: secret, created: created, modified: modified)
    }

    /// Attributes: a count, then name, type (0 string, 1 uint32) and value. In the hashed index a string value is
    /// an MD5 hex digest and a number a scrambled number; in the encrypted part they are the real values, and a
    /// number is reported in decimal as gnome-keyring does.
    private static func readAttributes(_ cursor: inout ByteCursor, hashed: Bool) throws -> [String: String] {
        let what = hashed ? "the hashed attributes" : "an item's attributes"
        let count = Int(try cursor.uint32(what))
        var attributes: [String: String] = [:]
        for _ in 0..<count {
            guard let name = try cursor.string(what) else { throw KeyringFileError.malformed("an attribute has no name") }
            switch try cursor.uint32(what) {
            case 0: attributes[name] = try cursor.string(what) ?? ""
            case 1: attributes[name] = String(try cursor.uint32(what))
            case let tag: throw KeyringFileError.malformed("attribute type \(tag) is neither string (0) nor uint32 (1)")
            }
        }
        return attributes
    }

    /// The access list is a leftover of the old gnome-keyring API; Secret Service providers do not use it.
    private static func skipAccessList(_ cursor: inout ByteCursor) throws {
        let count = Int(try cursor.uint32("an access list"))
        for _ in 0..<count {
            _ = try cursor.uint32("an access list entry")
            _ = try cursor.string("an access list entry")
            _ = try cursor.string("an access list entry")
            _ = try cursor.string("an access list entry")
            _ = try cursor.uint32("an access list entry")
        }
    }
}

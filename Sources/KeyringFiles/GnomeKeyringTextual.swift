// SPDX-License-Identifier: Apache-2.0
// gnome-keyring's plaintext "textual" keyring format: a GLib key file with a [keyring] group and one group per item.

import SecretCrypto

/// Reads gnome-keyring's textual keyring files, which it writes instead of the binary format when a keyring's
/// password is empty.
///
/// The first group is `[keyring]` (`display-name`, `ctime`, `mtime`, lock settings). Each item is a group named by
/// its numeric id with `item-type`, `display-name`, `secret` (text) or `binary-secret` (hex), `mtime` and `ctime`;
/// its attributes are groups `<id>:attribute<n>` with `name`, `type` (`string` or `uint32`) and `value`; groups
/// `<id>:acl<n>` hold a legacy access list, which is ignored.
public enum GnomeKeyringTextualFormat {
    /// Whether `bytes` look like a textual keyring: text whose first group header is `[keyring]`.
    public static func matches(_ bytes: [UInt8]) -> Bool {
        var index = 0
        while index < bytes.count {
            var end = index
            while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
            let line = bytes[index..<end].drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            if !line.isEmpty, line.first != UInt8(ascii: "#"), line.first != UInt8(ascii: "\r") {
                return line.starts(with: Array("[keyring]".utf8))
            }
            index = end + 1
        }
        return false
    }

    /// Parses a textual keyring file (it is not encrypted: no password).
    /// - Parameters:
    ///   - bytes: the whole file.
    ///   - limits: bounds on the number of items.
    /// - Returns: the keyring with every item that stores a secret (items without one have `secret == nil`).
    /// - Throws: ``KeyringFileError``: `.unrecognizedFormat` when the first group is not `[keyring]`, `.malformed`
    ///   for invalid text, escapes or hex, `.limitExceeded` for too many items.
    public static func parse(_ bytes: [UInt8], limits: ParseLimits = .default) throws -> ImportedKeyring {
        let file = try KeyFile(parsing: bytes)
        guard file.groups.first?.name == "keyring" else { throw KeyringFileError.unrecognizedFormat }
        let itemGroups = file.groups.filter { $0.name != "keyring" && !$0.name.contains(":") }
        try limits.checkItems(itemGroups.count)
        var attributeGroups: [String: [KeyFile.Group]] = [:]
        for group in file.groups {
            guard let colon = group.name.firstIndex(of: ":"),
                  group.name[group.name.index(after: colon)...].hasPrefix("attribute")
            else { continue }
            attributeGroups[String(group.name[..<colon]), default: []].append(group)
        }
        let items = try itemGroups.map { group in
            try item(group.name, in: file, attributes: attributeGroups[group.name] ?? [])
        }
        return ImportedKeyring(format: .gnomeKeyringTextual, label: try file.string("keyring", "display-name"),
                               created: file.unsigned("keyring", "ctime"), modified: file.unsigned("keyring", "mtime"),
                               items: items)
    }

    private static func item(_ id: String, in file: KeyFile, attributes groups: [KeyFile.Group]) throws
        -> ImportedItem {
        var attributes: [String: String] = [:]
        for group in groups {
            guard let name = try file.string(group.name, "name") else { continue }
            let type = try file.string(group.name, "type")
            if type == "uint32" {
                // gnome-keyring keeps a uint32 attribute only when its value parses, and reports it in decimal.
                if let number = file.unsigned(group.name, "value") { attributes[name] = String(UInt32(truncatingIfNeeded: number)) }
            } else {
                attributes[name] = try file.string(group.name, "value") ?? ""
            }
        }
        let type = file.unsigned(id, "item-type").map { UInt32(truncatingIfNeeded: $0) } ?? 0
        if attributes[GnomeKeyringItemType.schemaAttribute] == nil, let schema = GnomeKeyringItemType.schema(for: type) {
            attributes[GnomeKeyringItemType.schemaAttribute] = schema
        }
        return ImportedItem(label: try file.string(id, "display-name") ?? "", attributes: attributes,
                            secret: try secret(id, in: file), created: file.unsigned(id, "ctime"),
                            modified: file.unsigned(id, "mtime"))
    }

    /// gnome-keyring writes a UTF-8 secret verbatim after `secret=` (without key-file escaping) and any other secret
    /// as hex in `binary-secret`; the verbatim text is therefore what was stored.
    private static func secret(_ id: String, in file: KeyFile) throws -> SecretBytes? {
        if let text = file.raw(id, "secret") {
            var copy = text
            return try copy.withUTF8 { try SecretBytes.copy(of: UnsafeRawBufferPointer($0)) }
        }
        guard let hex = try file.string(id, "binary-secret") else { return nil }
        return try decodeHex(hex)
    }

    private static func decodeHex(_ hex: String) throws -> SecretBytes {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { throw KeyringFileError.malformed("a binary secret has an odd hex length") }
        let secret = try SecretBytes(count: digits.count / 2)
        try secret.withUnsafeMutableBytes { output in
            for index in 0..<output.count {
                guard let high = nibble(digits[2 * index]), let low = nibble(digits[2 * index + 1]) else {
                    throw KeyringFileError.malformed("a binary secret is not hexadecimal")
                }
                output[index] = high << 4 | low
            }
        }
        return secret
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// The plaintext inside a Coffer archive: the collection label and each item, built and read in secure memory.

import SecretCrypto

/// Encodes and decodes the archive payload (big-endian, length-prefixed; see `ARCHIVE.md`).
enum ArchivePayload {
    /// Serializes into one secure buffer; the size is computed first so secrets are never staged elsewhere.
    static func encode(_ keyring: ImportedKeyring) throws -> SecretBytes {
        func stringSize(_ string: String) -> Int { 4 + string.utf8.count }
        var size = 4 + stringSize(keyring.label ?? "")
        for item in keyring.items {
            size += stringSize(item.label) + stringSize(item.contentType ?? "") + 16 + 4
            for (name, value) in item.attributes { size += stringSize(name) + stringSize(value) }
            size += 4 + (item.secret?.count ?? 0)
        }
        let output = try SecretBytes(count: size)
        output.withUnsafeMutableBytes { buffer in
            var offset = 0
            func putBytes(_ bytes: UnsafeRawBufferPointer) {
                if bytes.count > 0 { buffer.baseAddress!.advanced(by: offset).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
                offset += bytes.count
            }
            func put32(_ value: UInt32) { withUnsafeBytes(of: value.bigEndian) { putBytes($0) } }
            func put64(_ value: UInt64) { withUnsafeBytes(of: value.bigEndian) { putBytes($0) } }
            func putString(_ string: String) {
                var copy = string
                put32(UInt32(copy.utf8.count))
                copy.withUTF8 { putBytes(UnsafeRawBufferPointer($0)) }
            }
            put32(UInt32(keyring.items.count))
            putString(keyring.label ?? "")
            for item in keyring.items {
                putString(item.label)
                putString(item.contentType ?? "")
                put64(item.created ?? 0)
                put64(item.modified ?? 0)
                put32(UInt32(item.attributes.count))
                for (name, value) in item.attributes.sorted(by: { $0.key < $1.key }) {
                    putString(name)
                    putString(value)
                }
                put32(UInt32(item.secret?.count ?? 0))
                item.secret?.withUnsafeBytes { putBytes($0) }
            }
        }
        return output
    }

    static func decode(_ payload: SecretBytes, limits: ParseLimits) throws -> ImportedKeyring {
        try payload.withUnsafeBytes { raw in
            var cursor = ByteCursor(raw)
            let count = Int(try cursor.uint32("the item count"))
            try limits.checkItems(count)
            let label = try cursor.string("the collection label") ?? ""
            var items: [ImportedItem] = []
            for _ in 0..<count {
                let itemLabel = try cursor.string("an item label") ?? ""
                let contentType = try cursor.string("a content type") ?? ""
                let created = try cursor.uint64("an item's times")
                let modified = try cursor.uint64("an item's times")
                var attributes: [String: String] = [:]
                for _ in 0..<Int(try cursor.uint32("an attribute count")) {
                    let name = try cursor.string("an attribute") ?? ""
                    attributes[name] = try cursor.string("an attribute") ?? ""
                }
                let secret = try cursor.range(count: Int(try cursor.uint32("a secret")), "a secret")
                items.append(ImportedItem(
                    label: itemLabel, attributes: attributes,
                    secret: try SecretBytes.copy(of: UnsafeRawBufferPointer(rebasing: raw[secret])),
                    contentType: contentType.isEmpty ? nil : contentType, created: created, modified: modified))
            }
            guard cursor.remaining == 0 else { throw KeyringFileError.malformed("bytes follow the last item") }
            return ImportedKeyring(format: .cofferArchive, label: label, items: items)
        }
    }
}

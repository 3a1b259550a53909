// SPDX-License-Identifier: Apache-2.0
// The key hierarchy of a persistent collection: password-wrapped master key and the keys derived from it.

import SecretCrypto
import SecretServiceProtocol

/// Keys of an unlocked collection, all in secure memory. Dropping the value releases (and zeroes) them.
struct CollectionKeys: Sendable {
    let master: SecretBytes
    let data: SecretBytes
    let authentication: SecretBytes

    /// Derives the data and authentication keys from the master key, separated by HKDF labels.
    init(master: SecretBytes, collectionID: String) throws {
        self.master = master
        let salt = Array(collectionID.utf8)
        data = try HKDF.sha256(inputKeyMaterial: master, salt: salt, info: Array("coffer/1 data".utf8),
                               outputByteCount: 32)
        authentication = try HKDF.sha256(inputKeyMaterial: master, salt: salt, info: Array("coffer/1 file".utf8),
                                         outputByteCount: 32)
    }

    /// A fresh random master key.
    static func newMaster() throws -> SecretBytes { try SecureRandom.secretBytes(count: 32) }
}

/// The password side of key wrapping: Argon2id and the associated data of format 1's key wrap (slot 0).
enum KeyWrapping {
    /// The key-encryption key for `password`: Argon2id over `0x01 ‖ password` (libgcrypt refuses an empty input).
    /// Slow by design (about 0.3 s with the default parameters); call it outside the store actor.
    static func keyEncryptionKey(password: SecretBytes, salt: [UInt8], parameters: Argon2idParameters) throws
        -> SecretBytes {
        let input = try SecretBytes(count: password.count + 1)
        input.withUnsafeMutableBytes { out in
            out[0] = 1
            password.withUnsafeBytes { out.baseAddress!.advanced(by: 1).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        }
        return try Argon2id.deriveKey(password: input, salt: salt, parameters: parameters, outputByteCount: 32)
    }

    static func associatedData(collectionID: String, parameters: Argon2idParameters, salt: [UInt8]) -> [UInt8] {
        var writer = ByteWriter()
        writer.raw(Array("coffer/1 wrap".utf8))
        writer.string(collectionID)
        writer.u32(parameters.iterations)
        writer.u32(parameters.memoryKiB)
        writer.u32(parameters.parallelism)
        writer.raw(salt)
        return writer.bytes
    }
}

/// Attribute tags: the keyed hashes that let a locked collection answer searches.
enum AttributeTags {
    /// The 16-byte tag of one attribute pair: HMAC-SHA256(index key, name ‖ 0 ‖ value), truncated.
    static func tag(name: String, value: String, indexKey: SecretBytes) throws -> AttributeTag {
        var message = Array(name.utf8)
        message.append(0)
        message += value.utf8
        return AttributeTag(try HMACSHA256.authenticationCode(for: message, key: indexKey).prefix(FileRecord.tagSize))
    }

    /// The tags of `attributes`, in the order files store them.
    /// - Throws: ``CryptoError`` when libgcrypt cannot compute them (no secure memory left).
    static func tags(for attributes: [String: String], indexKey: SecretBytes) throws -> [AttributeTag] {
        try tags(for: attributes, authenticator: HMACSHA256.Authenticator(key: indexKey))
    }

    /// The tags of `attributes` with a context already keyed with the index key: every search computes the tags of
    /// its query, and keying a context costs more than the tags.
    static func tags(for attributes: [String: String], authenticator: HMACSHA256.Authenticator) throws
        -> [AttributeTag] {
        try attributes.map { name, value in
            var prefix = Array(name.utf8)
            prefix.append(0)
            let mac = try authenticator.code(for: prefix[...], Array(value.utf8)[...])
            return AttributeTag(mac.prefix(FileRecord.tagSize))
        }.sorted(by: <)
    }
}

// SPDX-License-Identifier: Apache-2.0
// The keys a synchronized collection's journals are sealed and chained with, derived from its master key.

public import SecretCrypto

/// The two keys of one synchronized collection, in secure memory while the collection is unlocked. Both are
/// derived from the collection's master key and its sync id, so no key, ciphertext or MAC means anything in
/// another collection, and neither is the key that protects the local files.
public struct SyncKeys: Sendable {
    /// The synchronized collection the keys belong to.
    public let collection: SyncCollectionID
    /// Seals every record's content (AES-256-GCM).
    let record: AES256GCM.Key
    /// Keys each journal's HMAC-SHA256 chain.
    let chain: SecretBytes
    /// Authenticates password wraps for devices that hold the master key but not the password.
    let wrap: SecretBytes

    /// - Parameters:
    ///   - masterKey: the collection's 32-byte master key, as shared through the folder's password wrap.
    ///   - collection: the synchronized collection's id (the name of its directory in the folder).
    /// - Throws: ``CryptoError`` when libgcrypt refuses (no secure memory left) or the key is not 32 bytes.
    public init(masterKey: SecretBytes, collection: SyncCollectionID) throws {
        guard masterKey.count == AES256GCM.keyByteCount else { throw CryptoError.invalidKey }
        self.collection = collection
        let recordKey = try HKDF.sha256(inputKeyMaterial: masterKey, salt: collection.bytes,
                                        info: Array("coffer-sync/1 record".utf8), outputByteCount: 32)
        record = try AES256GCM.Key(recordKey)
        chain = try HKDF.sha256(inputKeyMaterial: masterKey, salt: collection.bytes,
                                info: Array("coffer-sync/1 chain".utf8), outputByteCount: 32)
        wrap = try HKDF.sha256(inputKeyMaterial: masterKey, salt: collection.bytes,
                               info: Array("coffer-sync/1 wrap".utf8), outputByteCount: 32)
    }
}

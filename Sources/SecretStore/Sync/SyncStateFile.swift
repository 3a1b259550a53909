// SPDX-License-Identifier: Apache-2.0
// What a synchronized collection keeps in the local data directory: its ids, its folder and its sealed master key.

import CollectionSync
import SecretCrypto

/// `<data directory>/sync/<collection>.state`: which synchronized collection a local collection is, this machine's
/// device id in it, the folder, and the synchronized collection's master key sealed under a key derived from the
/// local collection's master key (so it opens only while the collection is unlocked, and a copy of the data
/// directory without the collection's password reveals nothing). Replaced atomically; read at every unlock. A re-key
/// writes the state for the new local master key to `<collection>.state.next` first (same format; see
/// ``SecretStore/openSyncState(of:localMaster:)``).
///
/// ```
/// state := magic "COFFSYST" (8) | version u16 = 1 | sync collection id (16) | device id (16) | folder string
///          | nonce (12) | GCM(state key, master key) (48)
/// state key := HKDF-SHA256(local master key, salt: local collection id, info "coffer/1 sync")
/// associated data := "coffer/1 sync" | local collection id string | every byte before the nonce
/// ```
struct SyncStateFile {
    var collection: SyncCollectionID
    var device: DeviceID
    /// The folder the sync engine carries (the parent of the collection's directory).
    var folder: String
    var nonce: [UInt8]
    var sealedMasterKey: [UInt8]

    static let magic = Array("COFFSYST".utf8)
    static let version: UInt16 = 1
    static let directoryName = "sync"
    static let suffix = ".state"
    /// Appended to the state's path for the state prepared for a re-key of the local collection.
    static let nextSuffix = ".next"

    var syncFolder: SyncFolder { SyncFolder(root: folder, collection: collection) }

    /// A new state for `masterKey`, sealed under the local collection's master key.
    static func make(collection: SyncCollectionID, device: DeviceID, folder: String, masterKey: SecretBytes,
                     localMaster: SecretBytes, localID: String) throws -> SyncStateFile {
        var state = SyncStateFile(collection: collection, device: device, folder: folder,
                                  nonce: SecureRandom.nonce(count: AES256GCM.nonceByteCount), sealedMasterKey: [])
        state.sealedMasterKey = try AES256GCM.seal(masterKey, key: try stateKey(localMaster, localID: localID),
                                                   nonce: state.nonce,
                                                   associatedData: state.associatedData(localID: localID))
        return state
    }

    /// The synchronized collection's master key.
    /// - Throws: ``CryptoError/authenticationFailed`` when the file was altered or sealed under another key.
    func masterKey(localMaster: SecretBytes, localID: String) throws -> SecretBytes {
        try AES256GCM.open(sealedMasterKey, key: try Self.stateKey(localMaster, localID: localID), nonce: nonce,
                           associatedData: associatedData(localID: localID))
    }

    private static func stateKey(_ localMaster: SecretBytes, localID: String) throws -> SecretBytes {
        try HKDF.sha256(inputKeyMaterial: localMaster, salt: Array(localID.utf8), info: Array("coffer/1 sync".utf8),
                        outputByteCount: 32)
    }

    private func fields() -> [UInt8] {
        var writer = ByteWriter()
        writer.raw(Self.magic)
        writer.u16(Self.version)
        writer.raw(collection.bytes)
        writer.raw(device.bytes)
        writer.string(folder)
        return writer.bytes
    }

    private func associatedData(localID: String) -> [UInt8] {
        var writer = ByteWriter()
        writer.raw(Array("coffer/1 sync".utf8))
        writer.string(localID)
        return writer.bytes + fields()
    }

    func encode() -> [UInt8] { fields() + nonce + sealedMasterKey }

    static func decode(_ bytes: [UInt8]) throws(FormatError) -> SyncStateFile {
        var reader = ByteReader(bytes[...])
        guard try reader.raw(magic.count) == magic else { throw FormatError("not a sync state file") }
        let version = try reader.u16()
        guard version == Self.version else { throw FormatError("unknown sync state version \(version)") }
        guard let collection = SyncIdentifier(bytes: try reader.raw(SyncIdentifier.byteCount)),
              let device = SyncIdentifier(bytes: try reader.raw(SyncIdentifier.byteCount))
        else { throw FormatError("sync state too short") }
        let state = SyncStateFile(collection: collection, device: device, folder: try reader.string(),
                                  nonce: try reader.raw(AES256GCM.nonceByteCount),
                                  sealedMasterKey: try reader.raw(AES256GCM.keyByteCount + AES256GCM.tagByteCount))
        guard reader.isAtEnd else { throw FormatError("trailing bytes in the sync state") }
        return state
    }
}

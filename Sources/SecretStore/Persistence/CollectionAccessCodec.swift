// SPDX-License-Identifier: Apache-2.0
// Sealing and opening the applications always allowed to use a whole collection (record type 6, FORMAT.md).

import SecretCrypto

extension SecretVault {
    /// The associated data of the record: bound to its kind and collection, like item metadata to its item, so the
    /// list cannot be moved to another collection or passed off as an item's metadata.
    private var collectionAccessData: [UInt8] {
        var writer = ByteWriter()
        writer.raw(Array("coffer/1 access".utf8))
        writer.string(collectionID)
        return writer.bytes
    }

    /// Seals the list as a count (u16) and the identity strings.
    func sealCollectionAccess(_ applications: [String]) throws -> SealedBlob {
        var writer = ByteWriter()
        writer.u16(UInt16(applications.count))
        for application in applications { writer.string(application) }
        let nonce = SecureRandom.bytes(count: FileRecord.nonceSize)
        let plain = try SecretBytes(copying: writer.bytes)
        return SealedBlob(nonce: nonce, sealed: try sealed(plain, nonce: nonce, associatedData: collectionAccessData))
    }

    /// The list a ``sealCollectionAccess(_:)`` blob holds.
    /// - Throws: when the blob was altered or does not decode.
    func openCollectionAccess(_ blob: SealedBlob) throws -> [String] {
        let plain = try opened(blob, associatedData: collectionAccessData).copyBytes()
        var reader = ByteReader(plain[...])
        var applications: [String] = []
        for _ in 0..<Int(try reader.u16()) { applications.append(try reader.string()) }
        guard reader.isAtEnd else { throw FormatError("trailing bytes in a collection's access list") }
        return applications
    }
}

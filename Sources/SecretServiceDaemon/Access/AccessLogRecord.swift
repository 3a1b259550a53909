// SPDX-License-Identifier: Apache-2.0
// The sealed access log's bytes: a file header, then records each sealed with one collection's log key.

import SecretCrypto

/// The layout of `access.log` (docs/ACCESS-CONTROL.md, "The access log file, byte by byte").
enum AccessLogFormat {
    static let magic = Array("COFFERAL".utf8)
    /// The version cofferd writes. Version 1 (one entry per record, lines without a count) is still read; cofferd
    /// moves a version 1 file to `access.log.1` before it writes, so a file holds records of one version only.
    static let version: UInt8 = 2
    static let readableVersions: ClosedRange<UInt8> = 1...2
    static let fileIDCount = 16
    static let headerCount = magic.count + 1 + fileIDCount
    static let keyIDCount = 8
    static let tagCount = AES256GCM.tagByteCount
    /// Far more than any record cofferd writes: a larger length is damage, not an entry.
    static let maximumRecordCount = 64 * 1024

    static func header(fileID: [UInt8]) -> [UInt8] { magic + [version] + fileID }

    /// The file id of a header; `nil` when the bytes are not a header of a version cofferd reads.
    static func fileID(ofHeader bytes: ArraySlice<UInt8>) -> [UInt8]? {
        guard version(ofHeader: bytes) != nil else { return nil }
        return Array(bytes.dropFirst(magic.count + 1).prefix(fileIDCount))
    }

    /// The version of a header; `nil` when the bytes are not a header of a version cofferd reads.
    static func version(ofHeader bytes: ArraySlice<UInt8>) -> UInt8? {
        guard bytes.count >= headerCount, Array(bytes.prefix(magic.count)) == magic,
              readableVersions.contains(bytes[bytes.startIndex + magic.count]) else { return nil }
        return bytes[bytes.startIndex + magic.count]
    }

    /// Names a log key in clear without revealing it, so a reader knows which key opens a record (the current one,
    /// or an earlier one recovered from a key change) without trying them all.
    static func keyID(_ key: SecretBytes) throws -> [UInt8] {
        Array(try HMACSHA256.authenticationCode(for: Array("coffer/1 access log key id".utf8), key: key)
            .prefix(keyIDCount))
    }
}

/// A collection's log key made ready for many records: its cipher context keyed once, its id computed once.
struct AccessLogKey {
    let secret: SecretBytes
    let cipher: AES256GCM.Key
    let id: [UInt8]

    init(_ secret: SecretBytes) throws {
        self.secret = secret
        cipher = try AES256GCM.Key(secret)
        id = try AccessLogFormat.keyID(secret)
    }
}

/// One record as it lies in the file. Everything but the sealed payload is in clear; the associated data binds it
/// all, with the file's id and the tag of the collection's previous record in the file, so changing, removing or
/// reordering a record makes it or the records after it fail to open.
struct AccessLogRecord: Equatable {
    enum Kind: UInt8 {
        /// The payload is ``AccessLogEntry`` lines: one or more in a file of version 2, one in a file of version 1.
        case entry = 1
        /// The payload is the collection's previous log key (its master key changed): readers recover earlier
        /// records with it.
        case keyChange = 2
    }

    var kind: Kind
    /// The record's position in its file, from 1.
    var index: UInt64
    /// The collection whose key seals the record.
    var collection: String
    /// The record's position among that collection's records in the file, from 1.
    var sequence: UInt64
    var keyID: [UInt8]
    var nonce: [UInt8]
    /// The ciphertext followed by the GCM tag.
    var sealed: [UInt8]

    var tag: [UInt8] { Array(sealed.suffix(AccessLogFormat.tagCount)) }

    /// Seals `payload` as the record after `previousTag` (`nil`: the collection's first in the file).
    init(kind: Kind, index: UInt64, collection: String, sequence: UInt64, key: AccessLogKey, payload: SecretBytes,
         fileID: [UInt8], previousTag: [UInt8]?) throws {
        self.kind = kind
        self.index = index
        self.collection = collection
        self.sequence = sequence
        keyID = key.id
        nonce = SecureRandom.nonce(count: AES256GCM.nonceByteCount)
        sealed = []
        sealed = try key.cipher.seal(payload, nonce: nonce,
                                     associatedData: associatedData(fileID: fileID, previousTag: previousTag))
    }

    /// Opens the payload; throws when the record, or one before it, was changed, or `key` is not its key.
    func open(key: AccessLogKey, fileID: [UInt8], previousTag: [UInt8]?) throws -> SecretBytes {
        try key.cipher.open(sealed, nonce: nonce,
                            associatedData: associatedData(fileID: fileID, previousTag: previousTag))
    }

    func associatedData(fileID: [UInt8], previousTag: [UInt8]?) -> [UInt8] {
        var bytes = Array("coffer/1 access log".utf8) + fileID
        bytes += encodedFields
        bytes += previousTag ?? [UInt8](repeating: 0, count: AccessLogFormat.tagCount)
        return bytes
    }

    /// Kind, index, collection, sequence and key id: what the file holds in clear before the nonce.
    private var encodedFields: [UInt8] {
        let name = Array(collection.utf8)
        return [kind.rawValue] + Self.bigEndian(index, 8) + Self.bigEndian(UInt64(name.count), 2) + name
            + Self.bigEndian(sequence, 8) + keyID
    }

    /// `length (u32) ‖ fields ‖ nonce ‖ sealed`, the length counting the bytes after it.
    var encoded: [UInt8] {
        let body = encodedFields + nonce + sealed
        return Self.bigEndian(UInt64(body.count), 4) + body
    }

    /// What ``parse(_:)`` found at the start of some bytes.
    enum Parsed {
        /// A record, and how many bytes it took.
        case record(AccessLogRecord, count: Int)
        /// The bytes end inside a record: a write cut short (or a file cut).
        case torn
        /// Not a record: the file was damaged here.
        case damaged
    }

    static func parse(_ bytes: ArraySlice<UInt8>) -> Parsed {
        guard bytes.count >= 4 else { return .torn }
        let length = Int(number(bytes.prefix(4)))
        let fixed = 1 + 8 + 2 + 8 + AccessLogFormat.keyIDCount + AES256GCM.nonceByteCount + AccessLogFormat.tagCount
        guard length >= fixed, length <= AccessLogFormat.maximumRecordCount else { return .damaged }
        guard bytes.count >= 4 + length else { return .torn }
        var body = bytes.dropFirst(4).prefix(length)
        func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard body.count >= count else { return nil }
            defer { body = body.dropFirst(count) }
            return body.prefix(count)
        }
        guard let kindByte = take(1)?.first, let kind = Kind(rawValue: kindByte), let index = take(8),
              let nameLength = take(2), let name = take(Int(number(nameLength))),
              let collection = String(validating: name, as: UTF8.self), let sequence = take(8),
              let keyID = take(AccessLogFormat.keyIDCount), let nonce = take(AES256GCM.nonceByteCount),
              body.count >= AccessLogFormat.tagCount
        else { return .damaged }
        return .record(AccessLogRecord(kind: kind, index: number(index), collection: collection,
                                       sequence: number(sequence), keyID: Array(keyID), nonce: Array(nonce),
                                       sealed: Array(body)), count: 4 + length)
    }

    private init(kind: Kind, index: UInt64, collection: String, sequence: UInt64, keyID: [UInt8], nonce: [UInt8],
                 sealed: [UInt8]) {
        self.kind = kind
        self.index = index
        self.collection = collection
        self.sequence = sequence
        self.keyID = keyID
        self.nonce = nonce
        self.sealed = sealed
    }

    private static func bigEndian(_ value: UInt64, _ count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    private static func number(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}

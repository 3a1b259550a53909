// SPDX-License-Identifier: Apache-2.0
// Coffer's encrypted export archive: an Argon2id-derived key, one AES-256-GCM sealed payload, and a checksum that
// tells a damaged file from a wrong passphrase (see ARCHIVE.md).

public import SecretCrypto

/// Reads and writes `coffer export` archives. The layout is documented in `ARCHIVE.md` next to this file.
///
/// Version 2 (written) adds the sealed length to the header and a SHA-256 of everything before it at the end. Both
/// are checked before any key is derived, so a cut or bit-flipped file is reported as damaged and the GCM tag only
/// ever fails for a wrong passphrase (or a deliberate forgery that also recomputed the checksum). Version 1 (read
/// only) has neither, and its tag failure stays ambiguous.
public enum CofferArchive {
    static let magic: [UInt8] = Array("COFFER-ARCHIVE\0\n".utf8)
    static let version: UInt8 = 2
    static let versionWithoutChecksum: UInt8 = 1
    static let saltByteCount = 16
    /// magic, version, three Argon2id parameters, salt, nonce: all that version 1 has.
    static let commonHeaderByteCount = 16 + 1 + 12 + 16 + AES256GCM.nonceByteCount
    /// Version 2 adds the sealed length (u64).
    static let headerByteCount = commonHeaderByteCount + 8
    static let checksumByteCount = MessageDigest.sha256ByteCount

    /// Whether `bytes` start with the archive magic.
    public static func matches(_ bytes: [UInt8]) -> Bool { bytes.starts(with: magic) }

    // MARK: - Writing

    /// Seals items into a version 2 archive.
    /// - Parameters:
    ///   - keyring: the collection label (in `label`) and the items; items without a secret are stored with an
    ///     empty one.
    ///   - passphrase: the archive passphrase (non-empty).
    ///   - parameters: the Argon2id cost, stored in the header.
    /// - Returns: the archive bytes.
    /// - Throws: ``CryptoError`` (for example an empty passphrase).
    public static func write(_ keyring: ImportedKeyring, passphrase: SecretBytes,
                             parameters: Argon2idParameters = .default) throws -> [UInt8] {
        let salt = SecureRandom.bytes(count: saltByteCount)
        let nonce = SecureRandom.bytes(count: AES256GCM.nonceByteCount)
        let key = try Argon2id.deriveKey(password: passphrase, salt: salt, parameters: parameters,
                                         outputByteCount: AES256GCM.keyByteCount)
        let payload = try ArchivePayload.encode(keyring)
        var header = magic + [version]
        for value in [parameters.iterations, parameters.memoryKiB, parameters.parallelism] {
            header += bigEndian(value)
        }
        header += salt + nonce
        // GCM adds exactly one tag to the plaintext, so the sealed length is known before sealing and can be part
        // of the authenticated header.
        header += bigEndian(UInt64(payload.count + AES256GCM.tagByteCount))
        let sealed = header + (try AES256GCM.seal(payload, key: key, nonce: nonce, associatedData: header))
        return sealed + (try MessageDigest.sha256(sealed))
    }

    // MARK: - Reading

    /// Opens an archive (version 1 or 2).
    /// - Parameters:
    ///   - bytes: the archive.
    ///   - passphrase: its passphrase.
    ///   - limits: bounds on the Argon2id cost and the number of items.
    /// - Returns: the items, with format ``KeyringFormat/cofferArchive``.
    /// - Throws: ``KeyringFileError``: `.unrecognizedFormat`, `.unsupportedVersion`, `.passwordRequired`,
    ///   `.truncated` and `.malformed` (a version 2 archive whose length or checksum does not match: the file was
    ///   cut short or altered), `.wrongPassword` (the GCM tag does not verify: for version 2 a wrong passphrase;
    ///   for version 1 a wrong passphrase or an altered archive), `.limitExceeded`.
    public static func parse(_ bytes: [UInt8], passphrase: SecretBytes?, limits: ParseLimits = .default) throws
        -> ImportedKeyring {
        guard matches(bytes) else { throw KeyringFileError.unrecognizedFormat }
        guard bytes.count > magic.count else { throw KeyringFileError.truncated("the archive header") }
        let sealed: ArraySlice<UInt8>
        let header: ArraySlice<UInt8>
        switch bytes[magic.count] {
        case version:
            sealed = try checkedSealedPart(bytes)
            header = bytes[..<headerByteCount]
        case versionWithoutChecksum:
            guard bytes.count >= commonHeaderByteCount + AES256GCM.tagByteCount else {
                throw KeyringFileError.truncated("the archive header")
            }
            sealed = bytes[commonHeaderByteCount...]
            header = bytes[..<commonHeaderByteCount]
        case let other:
            throw KeyringFileError.unsupportedVersion("archive version \(other)")
        }
        let parameters = Argon2idParameters(
            iterations: readBigEndian(bytes, 17), memoryKiB: readBigEndian(bytes, 21),
            parallelism: readBigEndian(bytes, 25))
        guard parameters.iterations >= 1, parameters.iterations <= 64, (1...64).contains(parameters.parallelism),
              parameters.memoryKiB >= 8 * parameters.parallelism
        else { throw KeyringFileError.malformed("the Argon2id parameters are out of range") }
        guard parameters.memoryKiB <= limits.maximumArgon2MemoryKiB else {
            throw KeyringFileError.limitExceeded("Argon2id memory of \(parameters.memoryKiB) KiB")
        }
        guard let passphrase, !passphrase.isEmpty else { throw KeyringFileError.passwordRequired }
        let salt = Array(bytes[29..<45])
        let nonce = Array(bytes[45..<commonHeaderByteCount])
        let key = try Argon2id.deriveKey(password: passphrase, salt: salt, parameters: parameters,
                                         outputByteCount: AES256GCM.keyByteCount)
        let payload: SecretBytes
        do {
            payload = try AES256GCM.open(Array(sealed), key: key, nonce: nonce, associatedData: Array(header))
        } catch let error as CryptoError where error == .authenticationFailed {
            throw KeyringFileError.wrongPassword
        }
        return try ArchivePayload.decode(payload, limits: limits)
    }

    /// The ciphertext and tag of a version 2 archive, after checking that the file has exactly the length its
    /// header announces and that its checksum matches. Nothing here depends on the passphrase.
    private static func checkedSealedPart(_ bytes: [UInt8]) throws -> ArraySlice<UInt8> {
        guard bytes.count >= headerByteCount else { throw KeyringFileError.truncated("the archive header") }
        let announced = readBigEndian64(bytes, commonHeaderByteCount)
        // Compared in UInt64 so that a huge (damaged) length cannot overflow the sum.
        let overhead = UInt64(headerByteCount + checksumByteCount)
        guard announced >= UInt64(AES256GCM.tagByteCount), announced <= UInt64(Int.max) - overhead else {
            throw KeyringFileError.malformed("the sealed length in the header is impossible (the file is damaged)")
        }
        let expected = announced + overhead
        guard UInt64(bytes.count) >= expected else {
            throw KeyringFileError.truncated("the archive (it holds \(bytes.count) of the \(expected) bytes its "
                + "header announces)")
        }
        guard UInt64(bytes.count) == expected else {
            throw KeyringFileError.malformed("\(UInt64(bytes.count) - expected) bytes follow the end of the archive "
                + "(the file is damaged)")
        }
        let end = bytes.count - checksumByteCount
        guard try MessageDigest.sha256(Array(bytes[..<end])) == Array(bytes[end...]) else {
            throw KeyringFileError.malformed("the checksum does not match: the file was damaged after it was written")
        }
        return bytes[headerByteCount..<end]
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func bigEndian(_ value: UInt64) -> [UInt8] {
        bigEndian(UInt32(value >> 32)) + bigEndian(UInt32(value & 0xFFFF_FFFF))
    }

    private static func readBigEndian(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }

    private static func readBigEndian64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        UInt64(readBigEndian(bytes, offset)) << 32 | UInt64(readBigEndian(bytes, offset + 4))
    }
}

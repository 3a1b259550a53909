// SPDX-License-Identifier: Apache-2.0
// Coffer's encrypted export archive: an Argon2id-derived key and one AES-256-GCM sealed payload (see ARCHIVE.md).

public import SecretCrypto

/// Reads and writes `coffer export` archives. The layout is documented in `ARCHIVE.md` next to this file.
public enum CofferArchive {
    static let magic: [UInt8] = Array("COFFER-ARCHIVE\0\n".utf8)
    static let version: UInt8 = 1
    static let saltByteCount = 16
    /// magic, version, three Argon2id parameters, salt, nonce.
    static let headerByteCount = 16 + 1 + 12 + 16 + AES256GCM.nonceByteCount

    /// Whether `bytes` start with the archive magic.
    public static func matches(_ bytes: [UInt8]) -> Bool { bytes.starts(with: magic) }

    // MARK: - Writing

    /// Seals items into an archive.
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
        var header = magic + [version]
        for value in [parameters.iterations, parameters.memoryKiB, parameters.parallelism] {
            header += bigEndian(value)
        }
        header += salt + nonce
        let key = try Argon2id.deriveKey(password: passphrase, salt: salt, parameters: parameters,
                                         outputByteCount: AES256GCM.keyByteCount)
        let payload = try ArchivePayload.encode(keyring)
        return header + (try AES256GCM.seal(payload, key: key, nonce: nonce, associatedData: header))
    }

    // MARK: - Reading

    /// Opens an archive.
    /// - Parameters:
    ///   - bytes: the archive.
    ///   - passphrase: its passphrase.
    ///   - limits: bounds on the Argon2id cost and the number of items.
    /// - Returns: the items, with format ``KeyringFormat/cofferArchive``.
    /// - Throws: ``KeyringFileError``: `.unrecognizedFormat`, `.unsupportedVersion`, `.passwordRequired`,
    ///   `.wrongPassword` (the GCM tag does not verify: wrong passphrase or altered archive), `.truncated`,
    ///   `.malformed`, `.limitExceeded`.
    public static func parse(_ bytes: [UInt8], passphrase: SecretBytes?, limits: ParseLimits = .default) throws
        -> ImportedKeyring {
        guard matches(bytes) else { throw KeyringFileError.unrecognizedFormat }
        guard bytes.count >= headerByteCount + AES256GCM.tagByteCount else {
            throw KeyringFileError.truncated("the archive header")
        }
        guard bytes[16] == version else { throw KeyringFileError.unsupportedVersion("archive version \(bytes[16])") }
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
        let nonce = Array(bytes[45..<headerByteCount])
        let key = try Argon2id.deriveKey(password: passphrase, salt: salt, parameters: parameters,
                                         outputByteCount: AES256GCM.keyByteCount)
        let payload: SecretBytes
        do {
            payload = try AES256GCM.open(Array(bytes[headerByteCount...]), key: key, nonce: nonce,
                                         associatedData: Array(bytes[..<headerByteCount]))
        } catch let error as CryptoError where error == .authenticationFailed {
            throw KeyringFileError.wrongPassword
        }
        return try ArchivePayload.decode(payload, limits: limits)
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func readBigEndian(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }
}

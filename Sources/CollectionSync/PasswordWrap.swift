// SPDX-License-Identifier: Apache-2.0
// The collection's master key wrapped with its password, so that a new machine can join with the password alone.

public import SecretCrypto

/// One device's wrap of the collection's master key, `<device id>.wrap` in the collection's directory.
///
/// Each device writes only its own wrap (one writer per file, so an engine never makes conflict copies); a password
/// change on a device rewrites that device's wrap with a later clock, and a joining machine tries the wraps newest
/// first. The key-encryption key is Argon2id over `0x01 ‖ password`, as for local password slots; the fields
/// before the nonce are the associated data of the AES-256-GCM wrap, and a MAC under a key derived from the master
/// key lets devices that hold the master key but not the new password tell an authentic wrap from a planted one.
public struct PasswordWrap: Sendable, Equatable {
    public var collection: SyncCollectionID
    public var device: DeviceID
    /// When the password was set, on the device's clock: the newest wrap holds the current password.
    public var clock: HybridTimestamp
    public var parameters: Argon2idParameters
    public var salt: [UInt8]
    var nonce: [UInt8]
    var sealed: [UInt8]
    var mac: [UInt8]

    static let magic = Array("COFFWRAP".utf8)
    static let version: UInt16 = 1
    static let saltByteCount = 16
    static let sealedByteCount = AES256GCM.keyByteCount + AES256GCM.tagByteCount
    /// The encoded length: magic, version, ids, clock, parameters, salt, nonce, sealed key, MAC.
    static let byteCount = 8 + 2 + 16 + 16 + 8 + 12 + saltByteCount + AES256GCM.nonceByteCount + sealedByteCount
        + HMACSHA256.byteCount

    /// Wraps `masterKey` with `password`. Slow by design (one Argon2id run): call it off any actor that serves
    /// clients.
    /// - Throws: ``SyncFormatError`` for parameters outside the bounds a reader accepts, ``CryptoError``.
    public static func make(masterKey: SecretBytes, password: SecretBytes, keys: SyncKeys, device: DeviceID,
                            clock: HybridTimestamp, parameters: Argon2idParameters = .default) throws -> PasswordWrap {
        guard parameters.isWithinWrapBounds else { throw SyncFormatError("Argon2id parameters out of bounds") }
        var wrap = PasswordWrap(collection: keys.collection, device: device, clock: clock, parameters: parameters,
                                salt: SecureRandom.bytes(count: saltByteCount),
                                nonce: SecureRandom.bytes(count: AES256GCM.nonceByteCount), sealed: [], mac: [])
        let kek = try keyEncryptionKey(password: password, salt: wrap.salt, parameters: parameters)
        wrap.sealed = try AES256GCM.seal(masterKey, key: kek, nonce: wrap.nonce, associatedData: wrap.fields())
        wrap.mac = try HMACSHA256.authenticationCode(for: wrap.fields() + wrap.nonce + wrap.sealed, key: keys.wrap)
        return wrap
    }

    /// The master key, when `password` is the one this wrap was made with. Checks the parameters' bounds before
    /// deriving anything (they are read from the folder), and the MAC after, with keys derived from the result.
    /// - Throws: ``CryptoError/authenticationFailed`` for a wrong password or an altered wrap;
    ///   ``SyncFormatError`` for parameters out of bounds.
    public func unwrap(password: SecretBytes) throws -> SecretBytes {
        guard parameters.isWithinWrapBounds else { throw SyncFormatError("Argon2id parameters out of bounds") }
        let kek = try Self.keyEncryptionKey(password: password, salt: salt, parameters: parameters)
        let masterKey = try AES256GCM.open(sealed, key: kek, nonce: nonce, associatedData: fields())
        guard isAuthentic(keys: try SyncKeys(masterKey: masterKey, collection: collection)) else {
            throw CryptoError.authenticationFailed
        }
        return masterKey
    }

    /// Whether a holder of the collection's keys wrote this wrap (so its clock and device can be believed).
    public func isAuthentic(keys: SyncKeys) -> Bool {
        guard keys.collection == collection,
              let expected = try? HMACSHA256.authenticationCode(for: fields() + nonce + sealed, key: keys.wrap)
        else { return false }
        return ConstantTime.equal(expected, mac)
    }

    public func encode() -> [UInt8] { fields() + nonce + sealed + mac }

    /// - Throws: ``SyncFormatError`` unless `bytes` is a whole wrap of this format.
    public static func decode(_ bytes: [UInt8]) throws(SyncFormatError) -> PasswordWrap {
        guard bytes.count == byteCount else { throw SyncFormatError("a password wrap is \(byteCount) bytes") }
        var reader = SyncByteReader(bytes[...])
        guard try reader.raw(8) == magic else { throw SyncFormatError("not a password wrap (bad magic)") }
        let version = try reader.u16()
        guard version == Self.version else { throw SyncFormatError("unknown password wrap version \(version)") }
        let collection = try reader.identifier()
        let device = try reader.identifier()
        let clock = HybridTimestamp(packed: try reader.u64())
        let parameters = Argon2idParameters(iterations: try reader.u32(), memoryKiB: try reader.u32(),
                                            parallelism: try reader.u32())
        return PasswordWrap(collection: collection, device: device, clock: clock, parameters: parameters,
                            salt: try reader.raw(saltByteCount), nonce: try reader.raw(AES256GCM.nonceByteCount),
                            sealed: try reader.raw(sealedByteCount), mac: try reader.raw(HMACSHA256.byteCount))
    }

    /// The fields before the nonce: the associated data of the key wrap.
    private func fields() -> [UInt8] {
        var writer = SyncByteWriter(capacity: 80)
        writer.raw(Self.magic)
        writer.u16(Self.version)
        writer.raw(collection.bytes)
        writer.raw(device.bytes)
        writer.u64(clock.packed)
        writer.u32(parameters.iterations)
        writer.u32(parameters.memoryKiB)
        writer.u32(parameters.parallelism)
        writer.raw(salt)
        return writer.bytes
    }

    private static func keyEncryptionKey(password: SecretBytes, salt: [UInt8], parameters: Argon2idParameters) throws
        -> SecretBytes {
        let input = try SecretBytes(count: password.count + 1)
        input.withUnsafeMutableBytes { target in
            target[0] = 1
            password.withUnsafeBytes { source in
                if source.count > 0 { target.baseAddress!.advanced(by: 1).copyMemory(from: source.baseAddress!, byteCount: source.count) }
            }
        }
        return try Argon2id.deriveKey(password: input, salt: salt, parameters: parameters, outputByteCount: 32)
    }
}

extension SyncFolder {
    /// Writes `wrap` as its device's wrap file, atomically (a reader sees the old wrap or the new one).
    public func store(_ wrap: PasswordWrap) throws(SyncIOError) {
        try SyncFiles.ensureDirectory(directory)
        try SyncFiles.replace(wrapPath(for: wrap.device), with: wrap.encode(), directory: directory)
    }

    /// Every readable wrap in the directory, newest clock first: the order a joining machine tries them in. A file
    /// that is not a wrap of this collection (or is still being copied) is skipped.
    public func wraps() throws(SyncIOError) -> [PasswordWrap] {
        var found: [PasswordWrap] = []
        for device in try wrappingDevices() {
            guard let bytes = try? SyncFiles.read(wrapPath(for: device), limit: PasswordWrap.byteCount),
                  let wrap = try? PasswordWrap.decode(bytes), wrap.collection == collection, wrap.device == device
            else { continue }
            found.append(wrap)
        }
        return found.sorted { ($0.clock, $0.device) > ($1.clock, $1.device) }
    }
}

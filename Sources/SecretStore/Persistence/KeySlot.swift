// SPDX-License-Identifier: Apache-2.0
// Key slots: the several wraps of one collection's master key, and what opens each (FORMAT.md, "Key slots").

import SecretCrypto
import SecretServiceProtocol

/// What opens a key slot.
public enum KeySlotKind: UInt8, Sendable, CaseIterable {
    /// A password the user types; the key-encryption key comes from Argon2id.
    case password = 1
    /// A random key kept as a systemd credential (`systemd-creds encrypt`), read by cofferd at start.
    case systemdCredential = 2
    /// A random key printed once for the user to keep on paper.
    case recovery = 3

    /// The name the CLI and the D-Bus interface use.
    public var name: String {
        switch self {
        case .password: "password"
        case .systemdCredential: "systemd-credential"
        case .recovery: "recovery"
        }
    }

    /// The kind called `name`, or `nil`.
    public init?(name: String) {
        guard let kind = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = kind
    }
}

/// One slot as shown to users: its number and kind (never anything about its key).
public struct KeySlotInfo: Sendable, Equatable {
    public var id: UInt32
    public var kind: KeySlotKind

    public init(id: UInt32, kind: KeySlotKind) {
        self.id = id
        self.kind = kind
    }
}

/// One wrap of the master key. Slot 0 is the format-1 key wrap record (a password); other slots are key-slot
/// records. Password slots carry Argon2id parameters; the others open with a high-entropy key through HKDF.
struct KeySlot: Sendable, Equatable {
    var id: UInt32
    var kind: KeySlotKind
    /// Argon2id cost, for password slots only.
    var parameters: Argon2idParameters?
    var salt: [UInt8]
    var nonce: [UInt8]
    var wrappedKey: [UInt8]

    static let saltSize = 16
    /// Most slots a collection may have; with the bound on password slots this caps what a wrong password costs
    /// (one Argon2id run per password slot).
    static let maximumCount = 8
    static let maximumPasswordSlots = 4

    /// Slot 0, read from a format-1 key wrap record.
    init(legacy wrap: KeyWrap) {
        self.init(id: 0, kind: .password, parameters: wrap.parameters, salt: wrap.salt, nonce: wrap.nonce,
                  wrappedKey: wrap.wrappedKey)
    }

    init(id: UInt32, kind: KeySlotKind, parameters: Argon2idParameters?, salt: [UInt8], nonce: [UInt8],
         wrappedKey: [UInt8]) {
        self.id = id
        self.kind = kind
        self.parameters = parameters
        self.salt = salt
        self.nonce = nonce
        self.wrappedKey = wrappedKey
    }

    /// The record that stores this slot: slot 0 keeps the format-1 record, so a file whose only slot is its first
    /// password stays readable by every format-1 reader.
    var record: FileRecord {
        if id == 0, let parameters {
            return .keyWrap(KeyWrap(parameters: parameters, salt: salt, nonce: nonce, wrappedKey: wrappedKey))
        }
        return .keySlot(self)
    }

    var info: KeySlotInfo { KeySlotInfo(id: id, kind: kind) }
}

/// A key-encryption key made for one slot: the slot as it was when the key was derived, so a caller can check the
/// slot was not replaced meanwhile (a password change) before using the key.
struct SlotKey: Sendable {
    let slot: KeySlot
    let kek: SecretBytes
}

/// Sealing and opening the master key in key slots.
enum KeySlotWrapping {
    /// Keys of non-password slots must be at least this long: they are not stretched, so they must not be guessable.
    static let minimumKeyBytes = 16

    /// The key-encryption key for `secret` and `slot`: Argon2id for password slots (slow; call it off the store's
    /// actor), HKDF-SHA256 for the others.
    static func keyEncryptionKey(for slot: KeySlot, secret: SecretBytes) throws -> SecretBytes {
        if slot.kind == .password, let parameters = slot.parameters {
            return try KeyWrapping.keyEncryptionKey(password: secret, salt: slot.salt, parameters: parameters)
        }
        return try HKDF.sha256(inputKeyMaterial: secret, salt: slot.salt, info: Array("coffer/1 slot key".utf8),
                               outputByteCount: 32)
    }

    /// What each slot's seal authenticates besides the key: the collection, the slot's number and kind, and what
    /// derives its key-encryption key, so no parameter can be changed and no slot moved. Slot 0 keeps format 1's.
    static func associatedData(of slot: KeySlot, collectionID: String) -> [UInt8] {
        if slot.id == 0, let parameters = slot.parameters {
            return KeyWrapping.associatedData(collectionID: collectionID, parameters: parameters, salt: slot.salt)
        }
        var writer = ByteWriter()
        writer.raw(Array("coffer/1 slot".utf8))
        writer.string(collectionID)
        writer.u32(slot.id)
        writer.u8(slot.kind.rawValue)
        if let parameters = slot.parameters {
            writer.u32(parameters.iterations)
            writer.u32(parameters.memoryKiB)
            writer.u32(parameters.parallelism)
        }
        writer.raw(slot.salt)
        return writer.bytes
    }

    /// A new slot holding `master`, its key-encryption key already derived from `kek`'s secret with `salt`.
    static func seal(master: SecretBytes, kek: SecretBytes, id: UInt32, kind: KeySlotKind,
                     parameters: Argon2idParameters?, salt: [UInt8], collectionID: String) throws -> KeySlot {
        var slot = KeySlot(id: id, kind: kind, parameters: kind == .password ? parameters : nil, salt: salt,
                           nonce: SecureRandom.bytes(count: FileRecord.nonceSize), wrappedKey: [])
        slot.wrappedKey = try AES256GCM.seal(master, key: kek, nonce: slot.nonce,
                                             associatedData: associatedData(of: slot, collectionID: collectionID))
        return slot
    }

    /// A new non-password slot for `key` (HKDF, fresh salt).
    static func seal(master: SecretBytes, slotKey key: SecretBytes, id: UInt32, kind: KeySlotKind,
                     collectionID: String) throws -> KeySlot {
        let salt = SecureRandom.bytes(count: KeySlot.saltSize)
        let template = KeySlot(id: id, kind: kind, parameters: nil, salt: salt, nonce: [], wrappedKey: [])
        let kek = try keyEncryptionKey(for: template, secret: key)
        return try seal(master: master, kek: kek, id: id, kind: kind, parameters: nil, salt: salt,
                        collectionID: collectionID)
    }

    /// The master key, or `nil` when `kek` does not open `slot`.
    /// - Throws: `failed` when the key could not be unwrapped for another reason, such as no secure memory left:
    ///   only a tag that does not match means a wrong password or key.
    static func open(_ slot: KeySlot, kek: SecretBytes, collectionID: String) throws(SecretServiceError)
        -> SecretBytes? {
        do {
            return try AES256GCM.open(slot.wrappedKey, key: kek, nonce: slot.nonce,
                                      associatedData: associatedData(of: slot, collectionID: collectionID))
        } catch let error as CryptoError where error == .authenticationFailed {
            return nil
        } catch {
            throw .failed("the key could not be checked: \(error)")
        }
    }
}

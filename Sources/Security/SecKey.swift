// SPDX-License-Identifier: Apache-2.0
// SecKey: a key object for kSecValueRef and kSecReturnRef, holding Apple's external representation.

public import Foundation
import SecretCrypto

// Apple's "Storing keys in the keychain" adds a SecKey with kSecValueRef and reads it back with kSecReturnRef;
// keys move in and out of SecKey objects through SecKeyCreateWithData and SecKeyCopyExternalRepresentation.
// All of that is parsing and storing bytes (mapping §6.4). Generating keys, signing, encrypting and agreeing on
// secrets live in SecKeyGeneration.swift and SecKeyOperations.swift.

/// An RSA or elliptic-curve key (or a stored symmetric key) as its external representation: RSA as PKCS#1,
/// elliptic curves as X9.63 (`04‖X‖Y[‖K]`).
public final class SecKey: Sendable, Hashable, CustomStringConvertible {
    /// The external representation, in secure memory: for a private key it is the key itself.
    let representation: SecretBytes
    /// 0 public, 1 private, 2 symmetric.
    let keyClass: Int64
    /// 42 RSA, 73 elliptic curve.
    let keyType: Int64
    let fields: KeyFields

    /// A copy of the external representation in ordinary memory, for the keychain item and for
    /// `SecKeyCopyExternalRepresentation`, the two places Apple's API hands the bytes out.
    var data: Data { representation.withUnsafeBytes { Data($0) } }

    convenience init?(data: Data, keyClass: Int64, keyType: Int64) {
        guard let secret = try? SecretBytes(copying: data) else { return nil }
        self.init(secret: secret, keyClass: keyClass, keyType: keyType)
    }

    init?(secret: SecretBytes, keyClass: Int64, keyType: Int64) {
        guard let fields = try? KeyFields(secret: secret, keyClass: keyClass, keyType: keyType) else { return nil }
        self.representation = secret
        self.keyClass = keyClass
        self.keyType = keyType
        self.fields = fields
    }

    public static func == (lhs: SecKey, rhs: SecKey) -> Bool {
        (lhs.keyClass, lhs.keyType) == (rhs.keyClass, rhs.keyType) && lhs.representation.constantTimeEquals(rhs.representation)
    }

    /// Hashes the public half only, so no private bytes feed the hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(keyClass)
        hasher.combine(fields.publicKey)
    }

    public var description: String {
        let kind = ["public", "private", "symmetric"][Int(keyClass)]
        let algorithm = [KeyFields.rsa: "RSA", KeyFields.ellipticCurve: "EC"][keyType] ?? "type \(keyType)"
        return "<SecKey \(algorithm) \(kind), \(fields.sizeInBits) bits>"
    }
}

/// Makes a key from its external representation.
/// - Parameters:
///   - keyData: PKCS#1 for RSA, X9.63 for elliptic curves.
///   - attributes: `kSecAttrKeyType` (RSA or EC) and `kSecAttrKeyClass` (public or private) are required;
///     a `kSecAttrKeySizeInBits` must agree with the data.
///   - error: receives an `NSOSStatusErrorDomain` error (`errSecParam`) when the data or attributes are wrong.
public func SecKeyCreateWithData(_ keyData: CFData, _ attributes: CFDictionary,
                                 _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecKey? {
    let entries = readDictionary(attributes) ?? [:]
    func number(_ key: String) -> Int64? {
        switch entries[key] {
        case .string(let text)?: Int64(text)
        case .integer(let value)?: value
        default: nil
        }
    }
    guard let keyClass = number("kcls"), keyClass == 0 || keyClass == 1,
          let keyType = number("type"), keyType == KeyFields.rsa || keyType == KeyFields.ellipticCurve,
          let key = SecKey(data: Data(referencing: keyData), keyClass: keyClass, keyType: keyType),
          entries["bsiz"] == nil || number("bsiz") == Int64(key.fields.sizeInBits)
    else {
        error?.pointee = Unmanaged.passRetained(NSError(domain: NSOSStatusErrorDomain, code: Int(errSecParam)))
        return nil
    }
    return key
}

/// The key's external representation (the bytes `SecKeyCreateWithData` takes).
public func SecKeyCopyExternalRepresentation(_ key: SecKey,
                                             _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    ContiguousData(key.data)
}

/// The public half of an RSA or elliptic-curve key (the key itself when it is public); `nil` for symmetric keys.
public func SecKeyCopyPublicKey(_ key: SecKey) -> SecKey? {
    key.fields.publicKey.flatMap { SecKey(data: $0, keyClass: 0, keyType: key.keyType) }
}

/// The key's class, type, sizes and (for asymmetric keys) application label, as Apple reports them.
public func SecKeyCopyAttributes(_ key: SecKey) -> CFDictionary? {
    var attributes: [String: Any] = [
        "class": ItemClass.key.rawValue, "kcls": Int(key.keyClass), "type": Int(key.keyType),
        "bsiz": key.fields.sizeInBits, "esiz": key.fields.sizeInBits,
    ]
    attributes["klbl"] = key.fields.applicationLabel
    return attributes as NSDictionary
}

// SPDX-License-Identifier: Apache-2.0
// SecKeyCreateRandomKey: RSA and elliptic-curve key pairs, stored in the keychain when asked to be permanent.

public import Foundation
import SecretCrypto

/// Attributes applied to the private key of a generated pair (`kSecAttrIsPermanent`, `kSecAttrApplicationTag`, …).
nonisolated(unsafe) public let kSecPrivateKeyAttrs: CFString = "private"
/// Attributes applied to the public key of a generated pair.
nonisolated(unsafe) public let kSecPublicKeyAttrs: CFString = "public"

/// Generates a key pair and returns its private key.
/// - Parameters:
///   - parameters: `kSecAttrKeyType` (RSA, or EC/`kSecAttrKeyTypeECSECPrimeRandom`) and `kSecAttrKeySizeInBits`
///     (RSA 1024–4096 in whole bytes; EC 256, 384 or 521). With `kSecAttrIsPermanent` true (at the top level or in
///     `kSecPrivateKeyAttrs`) the private key is added to the keychain with the attributes of `kSecPrivateKeyAttrs`
///     (`kSecAttrApplicationTag`, `kSecAttrLabel`, …); likewise the public key with `kSecPublicKeyAttrs`.
///   - error: receives an `NSOSStatusErrorDomain` error (`errSecParam` for bad parameters, or the status of the
///     keychain add).
public func SecKeyCreateRandomKey(_ parameters: CFDictionary,
                                  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecKey? {
    func fail(_ status: OSStatus) -> SecKey? {
        error?.pointee = Unmanaged.passRetained(NSError(domain: NSOSStatusErrorDomain, code: Int(status)))
        return nil
    }
    let top = entries(parameters)
    let privateAttributes = (top[kSecPrivateKeyAttrs as String] as? NSDictionary).map(entries) ?? [:]
    let publicAttributes = (top[kSecPublicKeyAttrs as String] as? NSDictionary).map(entries) ?? [:]
    guard let type = integer(top[kSecAttrKeyType as String]), let bits = integer(top[kSecAttrKeySizeInBits as String])
    else { return fail(errSecParam) }
    let privateSecret: SecretBytes
    switch type {
    case KeyFields.rsa:
        guard let key = try? RSAPrivateKey.generate(bits: Int(bits)), let der = try? key.pkcs1() else {
            return fail(errSecParam)
        }
        privateSecret = der
    case KeyFields.ellipticCurve:
        guard let curve = EllipticCurve.allCases.first(where: { $0.bits == Int(bits) }),
              let key = try? ECPrivateKey.generate(curve: curve), let x963 = try? key.x963Representation()
        else { return fail(errSecParam) }
        privateSecret = x963
    default:
        return fail(errSecParam)
    }
    guard let privateKey = SecKey(secret: privateSecret, keyClass: 1, keyType: type),
          let publicKey = SecKeyCopyPublicKey(privateKey)
    else { return fail(errSecInternalComponent) }
    let permanent = flag(top[kSecAttrIsPermanent as String])
    for (key, attributes) in [(privateKey, privateAttributes), (publicKey, publicAttributes)] {
        guard flag(attributes[kSecAttrIsPermanent as String]) ?? permanent ?? false else { continue }
        var query = attributes.filter { $0.key != kSecAttrIsPermanent as String }
        query[kSecClass as String] = kSecClassKey
        query[kSecValueRef as String] = key
        let status = SecItemAdd(query as NSDictionary, nil)
        guard status == errSecSuccess else { return fail(status) }
    }
    return privateKey
}

private func entries(_ dictionary: NSDictionary) -> [String: Any] {
    var result: [String: Any] = [:]
    for (key, value) in dictionary {
        if let key = key as? String { result[key] = value }
    }
    return result
}

/// A number given as `NSNumber` or as a numeric string (Apple's key types are strings such as "73").
private func integer(_ value: Any?) -> Int64? {
    switch value {
    case let number as NSNumber: number.int64Value
    case let text as String: Int64(text)
    case let text as NSString: Int64(text as String)
    default: nil
    }
}

private func flag(_ value: Any?) -> Bool? {
    (value as? NSNumber)?.boolValue
}

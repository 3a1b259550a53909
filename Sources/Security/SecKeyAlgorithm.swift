// SPDX-License-Identifier: Apache-2.0
// SecKeyAlgorithm and SecKeyOperationType with Apple's names and raw values.

public import Foundation
import SecretCrypto

/// An algorithm for `SecKeyCreateSignature`, `SecKeyCreateEncryptedData`, `SecKeyCopyKeyExchangeResult`, ….
/// The raw values are Apple's (`algid:sign:ECDSA:message-X962:SHA256`, …).
public struct SecKeyAlgorithm: RawRepresentable, Hashable, @unchecked Sendable {
    // @unchecked Sendable: the CFString (an NSString here) is immutable.
    public let rawValue: CFString

    public init(rawValue: CFString) {
        self.rawValue = rawValue
    }

    public init(_ rawValue: CFString) {
        self.rawValue = rawValue
    }

    public static func == (lhs: SecKeyAlgorithm, rhs: SecKeyAlgorithm) -> Bool {
        (lhs.rawValue as String) == (rhs.rawValue as String)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue as String) }
}

/// What a key is asked to do, for `SecKeyIsAlgorithmSupported`.
public enum SecKeyOperationType: Int, Sendable {
    case sign = 0, verify = 1, encrypt = 2, decrypt = 3, keyExchange = 4
}

/// `SecKeyCopyKeyExchangeResult` parameter: the number of bytes a KDF algorithm derives (required for them).
nonisolated(unsafe) public let kSecKeyKeyExchangeParameterRequestedSize: CFString = "requestedSize"
/// `SecKeyCopyKeyExchangeResult` parameter: the KDF's SharedInfo (optional).
nonisolated(unsafe) public let kSecKeyKeyExchangeParameterSharedInfo: CFString = "sharedInfo"

extension SecKeyAlgorithm {
    public static let ecdsaSignatureDigestX962SHA1 = Self("algid:sign:ECDSA:digest-X962:SHA1")
    public static let ecdsaSignatureDigestX962SHA224 = Self("algid:sign:ECDSA:digest-X962:SHA224")
    public static let ecdsaSignatureDigestX962SHA256 = Self("algid:sign:ECDSA:digest-X962:SHA256")
    public static let ecdsaSignatureDigestX962SHA384 = Self("algid:sign:ECDSA:digest-X962:SHA384")
    public static let ecdsaSignatureDigestX962SHA512 = Self("algid:sign:ECDSA:digest-X962:SHA512")
    public static let ecdsaSignatureMessageX962SHA1 = Self("algid:sign:ECDSA:message-X962:SHA1")
    public static let ecdsaSignatureMessageX962SHA224 = Self("algid:sign:ECDSA:message-X962:SHA224")
    public static let ecdsaSignatureMessageX962SHA256 = Self("algid:sign:ECDSA:message-X962:SHA256")
    public static let ecdsaSignatureMessageX962SHA384 = Self("algid:sign:ECDSA:message-X962:SHA384")
    public static let ecdsaSignatureMessageX962SHA512 = Self("algid:sign:ECDSA:message-X962:SHA512")

    public static let rsaSignatureDigestPKCS1v15SHA1 = Self("algid:sign:RSA:digest-PKCS1v15:SHA1")
    public static let rsaSignatureDigestPKCS1v15SHA224 = Self("algid:sign:RSA:digest-PKCS1v15:SHA224")
    public static let rsaSignatureDigestPKCS1v15SHA256 = Self("algid:sign:RSA:digest-PKCS1v15:SHA256")
    public static let rsaSignatureDigestPKCS1v15SHA384 = Self("algid:sign:RSA:digest-PKCS1v15:SHA384")
    public static let rsaSignatureDigestPKCS1v15SHA512 = Self("algid:sign:RSA:digest-PKCS1v15:SHA512")
    public static let rsaSignatureMessagePKCS1v15SHA1 = Self("algid:sign:RSA:message-PKCS1v15:SHA1")
    public static let rsaSignatureMessagePKCS1v15SHA224 = Self("algid:sign:RSA:message-PKCS1v15:SHA224")
    public static let rsaSignatureMessagePKCS1v15SHA256 = Self("algid:sign:RSA:message-PKCS1v15:SHA256")
    public static let rsaSignatureMessagePKCS1v15SHA384 = Self("algid:sign:RSA:message-PKCS1v15:SHA384")
    public static let rsaSignatureMessagePKCS1v15SHA512 = Self("algid:sign:RSA:message-PKCS1v15:SHA512")

    public static let rsaSignatureDigestPSSSHA1 = Self("algid:sign:RSA:digest-PSS:SHA1:SHA1:20")
    public static let rsaSignatureDigestPSSSHA224 = Self("algid:sign:RSA:digest-PSS:SHA224:SHA224:28")
    public static let rsaSignatureDigestPSSSHA256 = Self("algid:sign:RSA:digest-PSS:SHA256:SHA256:32")
    public static let rsaSignatureDigestPSSSHA384 = Self("algid:sign:RSA:digest-PSS:SHA384:SHA384:48")
    public static let rsaSignatureDigestPSSSHA512 = Self("algid:sign:RSA:digest-PSS:SHA512:SHA512:64")
    public static let rsaSignatureMessagePSSSHA1 = Self("algid:sign:RSA:message-PSS:SHA1:SHA1:20")
    public static let rsaSignatureMessagePSSSHA224 = Self("algid:sign:RSA:message-PSS:SHA224:SHA224:28")
    public static let rsaSignatureMessagePSSSHA256 = Self("algid:sign:RSA:message-PSS:SHA256:SHA256:32")
    public static let rsaSignatureMessagePSSSHA384 = Self("algid:sign:RSA:message-PSS:SHA384:SHA384:48")
    public static let rsaSignatureMessagePSSSHA512 = Self("algid:sign:RSA:message-PSS:SHA512:SHA512:64")

    public static let rsaEncryptionPKCS1 = Self("algid:encrypt:RSA:PKCS1")
    public static let rsaEncryptionOAEPSHA1 = Self("algid:encrypt:RSA:OAEP:SHA1")
    public static let rsaEncryptionOAEPSHA224 = Self("algid:encrypt:RSA:OAEP:SHA224")
    public static let rsaEncryptionOAEPSHA256 = Self("algid:encrypt:RSA:OAEP:SHA256")
    public static let rsaEncryptionOAEPSHA384 = Self("algid:encrypt:RSA:OAEP:SHA384")
    public static let rsaEncryptionOAEPSHA512 = Self("algid:encrypt:RSA:OAEP:SHA512")

    public static let eciesEncryptionStandardX963SHA1AESGCM = Self("algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM")
    public static let eciesEncryptionStandardX963SHA224AESGCM = Self("algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM")
    public static let eciesEncryptionStandardX963SHA256AESGCM = Self("algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM")
    public static let eciesEncryptionStandardX963SHA384AESGCM = Self("algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM")
    public static let eciesEncryptionStandardX963SHA512AESGCM = Self("algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM")
    public static let eciesEncryptionCofactorX963SHA1AESGCM = Self("algid:encrypt:ECIES:ECDHC:KDFX963:SHA1:AESGCM")
    public static let eciesEncryptionCofactorX963SHA224AESGCM = Self("algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM")
    public static let eciesEncryptionCofactorX963SHA256AESGCM = Self("algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM")
    public static let eciesEncryptionCofactorX963SHA384AESGCM = Self("algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM")
    public static let eciesEncryptionCofactorX963SHA512AESGCM = Self("algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM")
    public static let eciesEncryptionStandardVariableIVX963SHA224AESGCM =
        Self("algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM-KDFIV")
    public static let eciesEncryptionStandardVariableIVX963SHA256AESGCM =
        Self("algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV")
    public static let eciesEncryptionStandardVariableIVX963SHA384AESGCM =
        Self("algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM-KDFIV")
    public static let eciesEncryptionStandardVariableIVX963SHA512AESGCM =
        Self("algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM-KDFIV")
    public static let eciesEncryptionCofactorVariableIVX963SHA224AESGCM =
        Self("algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM-KDFIV")
    public static let eciesEncryptionCofactorVariableIVX963SHA256AESGCM =
        Self("algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV")
    public static let eciesEncryptionCofactorVariableIVX963SHA384AESGCM =
        Self("algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM-KDFIV")
    public static let eciesEncryptionCofactorVariableIVX963SHA512AESGCM =
        Self("algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM-KDFIV")

    public static let ecdhKeyExchangeStandard = Self("algid:keyexchange:ECDH")
    public static let ecdhKeyExchangeStandardX963SHA1 = Self("algid:keyexchange:ECDH:KDFX963:SHA1")
    public static let ecdhKeyExchangeStandardX963SHA224 = Self("algid:keyexchange:ECDH:KDFX963:SHA224")
    public static let ecdhKeyExchangeStandardX963SHA256 = Self("algid:keyexchange:ECDH:KDFX963:SHA256")
    public static let ecdhKeyExchangeStandardX963SHA384 = Self("algid:keyexchange:ECDH:KDFX963:SHA384")
    public static let ecdhKeyExchangeStandardX963SHA512 = Self("algid:keyexchange:ECDH:KDFX963:SHA512")
    public static let ecdhKeyExchangeCofactor = Self("algid:keyexchange:ECDHC")
    public static let ecdhKeyExchangeCofactorX963SHA1 = Self("algid:keyexchange:ECDHC:KDFX963:SHA1")
    public static let ecdhKeyExchangeCofactorX963SHA224 = Self("algid:keyexchange:ECDHC:KDFX963:SHA224")
    public static let ecdhKeyExchangeCofactorX963SHA256 = Self("algid:keyexchange:ECDHC:KDFX963:SHA256")
    public static let ecdhKeyExchangeCofactorX963SHA384 = Self("algid:keyexchange:ECDHC:KDFX963:SHA384")
    public static let ecdhKeyExchangeCofactorX963SHA512 = Self("algid:keyexchange:ECDHC:KDFX963:SHA512")
}

/// What an algorithm's raw value asks for. Read from the value's own fields rather than from a second list of
/// the constants above, so the two cannot disagree.
enum KeyAlgorithmSpec {
    case ecdsa(DigestAlgorithm, hashesMessage: Bool)
    case rsaSignature(DigestAlgorithm, hashesMessage: Bool, RSASignaturePadding)
    case rsaEncryption(RSAEncryptionPadding)
    case ecies(DigestAlgorithm, variableIV: Bool)
    case ecdh(DigestAlgorithm?)

    init?(_ algorithm: SecKeyAlgorithm) {
        let fields = (algorithm.rawValue as String).split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        func digest(_ name: String) -> DigestAlgorithm? {
            ["SHA1": .sha1, "SHA224": .sha224, "SHA256": .sha256, "SHA384": .sha384, "SHA512": .sha512][name]
        }
        guard fields.count >= 3, fields[0] == "algid" else { return nil }
        switch (fields[1], fields[2], Array(fields.dropFirst(3))) {
        case ("sign", "ECDSA", let rest) where rest.count == 2:
            guard let hash = digest(rest[1]), rest[0] == "digest-X962" || rest[0] == "message-X962" else { return nil }
            self = .ecdsa(hash, hashesMessage: rest[0] == "message-X962")
        case ("sign", "RSA", let rest) where rest.count == 2:
            guard let hash = digest(rest[1]), rest[0] == "digest-PKCS1v15" || rest[0] == "message-PKCS1v15" else {
                return nil
            }
            self = .rsaSignature(hash, hashesMessage: rest[0] == "message-PKCS1v15", .pkcs1v15)
        case ("sign", "RSA", let rest) where rest.count == 4:
            guard let hash = digest(rest[1]), rest[2] == rest[1], rest[3] == String(hash.byteCount),
                  rest[0] == "digest-PSS" || rest[0] == "message-PSS"
            else { return nil }
            self = .rsaSignature(hash, hashesMessage: rest[0] == "message-PSS", .pss)
        case ("encrypt", "RSA", ["PKCS1"]):
            self = .rsaEncryption(.pkcs1)
        case ("encrypt", "RSA", let rest) where rest.count == 2 && rest[0] == "OAEP":
            guard let hash = digest(rest[1]) else { return nil }
            self = .rsaEncryption(.oaep(hash))
        case ("encrypt", "ECIES", let rest) where rest.count == 4:
            guard rest[0] == "ECDH" || rest[0] == "ECDHC", rest[1] == "KDFX963", let hash = digest(rest[2]),
                  rest[3] == "AESGCM" || rest[3] == "AESGCM-KDFIV"
            else { return nil }
            self = .ecies(hash, variableIV: rest[3] == "AESGCM-KDFIV")
        case ("keyexchange", let kind, let rest) where kind == "ECDH" || kind == "ECDHC":
            if rest.isEmpty {
                self = .ecdh(nil)
            } else if rest.count == 2, rest[0] == "KDFX963", let hash = digest(rest[1]) {
                self = .ecdh(hash)
            } else {
                return nil
            }
        default:
            return nil
        }
    }

    /// The operations this algorithm serves.
    var operations: Set<SecKeyOperationType> {
        switch self {
        case .ecdsa, .rsaSignature: [.sign, .verify]
        case .rsaEncryption, .ecies: [.encrypt, .decrypt]
        case .ecdh: [.keyExchange]
        }
    }

    /// The key type (42 RSA, 73 elliptic curve) the algorithm needs.
    var keyType: Int64 {
        switch self {
        case .ecdsa, .ecies, .ecdh: KeyFields.ellipticCurve
        case .rsaSignature, .rsaEncryption: KeyFields.rsa
        }
    }
}

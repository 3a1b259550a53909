// SPDX-License-Identifier: Apache-2.0
// SecKeyCreateSignature, SecKeyVerifySignature, SecKeyCreateEncryptedData, SecKeyCreateDecryptedData,
// SecKeyCopyKeyExchangeResult, SecKeyIsAlgorithmSupported and SecKeyGetBlockSize over SecretCrypto.

public import Foundation
import SecretCrypto

// Errors follow Apple's SecKey.m: an algorithm the key cannot run is errSecUnimplemented ("algorithm not
// supported by the key"), bad input is errSecParam, a signature that does not verify is errSecVerifyFailed, all in
// NSOSStatusErrorDomain. Private keys are read from the SecKey's secure memory for each operation.

/// Signs `dataToSign` (a message, or a digest for the `…Digest…` algorithms) with a private key.
/// - Returns: the signature (X9.62 DER for ECDSA, the modulus length for RSA), or `nil` with `error` set.
public func SecKeyCreateSignature(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ dataToSign: CFData,
                                  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    perform(error) { () throws(KeychainFailure) -> CFData in
        let spec = try usable(key, algorithm, .sign)
        let input = [UInt8](Data(referencing: dataToSign))
        switch spec {
        case .ecdsa(let hash, let hashesMessage):
            let digest = try digestInput(input, hash, hashesMessage)
            return ContiguousData(try crypto { try ecPrivateKey(key).sign(digest: digest, algorithm: hash) })
        case .rsaSignature(let hash, let hashesMessage, let padding):
            let digest = try digestInput(input, hash, hashesMessage)
            return ContiguousData(try crypto {
                try rsaPrivateKey(key).sign(digest: digest, algorithm: hash, padding: padding)
            })
        default:
            throw KeychainFailure(errSecUnimplemented)
        }
    }
}

/// Checks `signature` over `signedData` (a message, or a digest for the `…Digest…` algorithms) with a public key
/// (or the public half of a private key).
/// - Returns: `true` when it matches; otherwise `false` with `error` set (`errSecVerifyFailed` for a mismatch).
public func SecKeyVerifySignature(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ signedData: CFData,
                                  _ signature: CFData, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> Bool {
    perform(error) { () throws(KeychainFailure) -> Bool in
        let spec = try usable(key, algorithm, .verify)
        let input = [UInt8](Data(referencing: signedData))
        let signatureBytes = [UInt8](Data(referencing: signature))
        let matches: Bool
        switch spec {
        case .ecdsa(let hash, let hashesMessage):
            let digest = try digestInput(input, hash, hashesMessage)
            matches = try crypto { try ECPublicKey(x963: publicBytes(key)) }
                .verify(signature: signatureBytes, digest: digest, algorithm: hash)
        case .rsaSignature(let hash, let hashesMessage, let padding):
            let digest = try digestInput(input, hash, hashesMessage)
            matches = try crypto { try RSAPublicKey(pkcs1: publicBytes(key)) }
                .verify(signature: signatureBytes, digest: digest, algorithm: hash, padding: padding)
        default:
            throw KeychainFailure(errSecUnimplemented)
        }
        guard matches else { throw KeychainFailure(errSecVerifyFailed) }
        return true
    } ?? false
}

/// Encrypts `plaintext` to a public key (or the public half of a private key).
public func SecKeyCreateEncryptedData(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ plaintext: CFData,
                                      _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    perform(error) { () throws(KeychainFailure) -> CFData in
        let spec = try usable(key, algorithm, .encrypt)
        let secret = try crypto { try SecretBytes(copying: Data(referencing: plaintext)) }
        switch spec {
        case .rsaEncryption(let padding):
            return ContiguousData(try crypto {
                try RSAPublicKey(pkcs1: publicBytes(key)).encrypt(secret, padding: padding)
            })
        case .ecies(let hash, let variableIV):
            return ContiguousData(try crypto {
                try AppleECIES.seal(secret, to: ECPublicKey(x963: publicBytes(key)), kdf: hash, variableIV: variableIV)
            })
        default:
            throw KeychainFailure(errSecUnimplemented)
        }
    }
}

/// Decrypts `ciphertext` with a private key.
/// - Returns: the plaintext, or `nil` with `error` set (`errSecParam` for a ciphertext that does not decrypt).
public func SecKeyCreateDecryptedData(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ ciphertext: CFData,
                                      _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    perform(error) { () throws(KeychainFailure) -> CFData in
        let spec = try usable(key, algorithm, .decrypt)
        let input = [UInt8](Data(referencing: ciphertext))
        let plaintext: SecretBytes
        switch spec {
        case .rsaEncryption(let padding):
            plaintext = try crypto { try rsaPrivateKey(key).decrypt(input, padding: padding) }
        case .ecies(let hash, let variableIV):
            plaintext = try crypto {
                try AppleECIES.open(input, with: ecPrivateKey(key), kdf: hash, variableIV: variableIV)
            }
        default:
            throw KeychainFailure(errSecUnimplemented)
        }
        // The caller asked for the plaintext as CFData; this is where it leaves secure memory.
        return plaintext.withUnsafeBytes { ContiguousData($0) }
    }
}

/// ECDH between a private key and a peer's public key. The plain algorithms return the shared secret (the X
/// coordinate); the `…X963SHA…` ones derive `kSecKeyKeyExchangeParameterRequestedSize` bytes with the X9.63 KDF
/// and the optional `kSecKeyKeyExchangeParameterSharedInfo`.
public func SecKeyCopyKeyExchangeResult(_ privateKey: SecKey, _ algorithm: SecKeyAlgorithm, _ publicKey: SecKey,
                                        _ parameters: CFDictionary,
                                        _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    perform(error) { () throws(KeychainFailure) -> CFData in
        guard case .ecdh(let hash) = try usable(privateKey, algorithm, .keyExchange) else {
            throw KeychainFailure(errSecUnimplemented)
        }
        guard publicKey.keyType == KeyFields.ellipticCurve else { throw KeychainFailure(errSecParam) }
        let shared = try crypto {
            try ecPrivateKey(privateKey).sharedSecret(with: ECPublicKey(x963: publicBytes(publicKey)))
        }
        let output: SecretBytes
        if let hash {
            let requested = parameters.object(forKey: kSecKeyKeyExchangeParameterRequestedSize) as? NSNumber
            let sharedInfo = parameters.object(forKey: kSecKeyKeyExchangeParameterSharedInfo)
            guard let size = requested?.intValue, size > 0,
                  sharedInfo == nil || sharedInfo is NSData
            else { throw KeychainFailure(errSecParam) }
            let info = (sharedInfo as? NSData).map { [UInt8](Data(referencing: $0)) } ?? []
            output = try crypto { try X963KDF.derive(shared, sharedInfo: info, length: size, digest: hash) }
        } else {
            output = shared
        }
        return output.withUnsafeBytes { ContiguousData($0) }
    }
}

/// Whether `key` can run `algorithm` for `operation` (a private key for sign, decrypt and key exchange; either
/// kind for verify and encrypt).
public func SecKeyIsAlgorithmSupported(_ key: SecKey, _ operation: SecKeyOperationType,
                                       _ algorithm: SecKeyAlgorithm) -> Bool {
    (try? usable(key, algorithm, operation)) != nil
}

/// The block size in bytes: the modulus length for RSA; for elliptic-curve keys the key size in octets, as
/// Apple's SecECKey.c reports it.
public func SecKeyGetBlockSize(_ key: SecKey) -> Int {
    switch key.keyType {
    case KeyFields.rsa, KeyFields.ellipticCurve: (key.fields.sizeInBits + 7) / 8
    default: 0
    }
}

// MARK: - Shared steps

/// The spec of `algorithm` when `key` can run it for `operation`.
private func usable(_ key: SecKey, _ algorithm: SecKeyAlgorithm,
                    _ operation: SecKeyOperationType) throws(KeychainFailure) -> KeyAlgorithmSpec {
    guard let spec = KeyAlgorithmSpec(algorithm), spec.operations.contains(operation),
          spec.keyType == key.keyType, key.keyClass != 2,
          key.keyClass == 1 || operation == .verify || operation == .encrypt
    else { throw KeychainFailure(errSecUnimplemented) }
    return spec
}

/// The digest to sign: the input itself for digest algorithms (which must have the digest's length), else its hash.
private func digestInput(_ input: [UInt8], _ hash: DigestAlgorithm,
                         _ hashesMessage: Bool) throws(KeychainFailure) -> [UInt8] {
    if hashesMessage { return try crypto { try hash.digest(input) } }
    guard input.count == hash.byteCount else { throw KeychainFailure(errSecParam) }
    return input
}

private func publicBytes(_ key: SecKey) throws -> [UInt8] {
    guard let bytes = key.fields.publicKey else { throw KeychainFailure(errSecParam) }
    return [UInt8](bytes)
}

private func ecPrivateKey(_ key: SecKey) throws -> ECPrivateKey {
    try ECPrivateKey(x963: key.representation)
}

private func rsaPrivateKey(_ key: SecKey) throws -> RSAPrivateKey {
    try RSAPrivateKey(pkcs1: key.representation)
}

/// Runs a SecretCrypto step; its failures become `errSecParam` (bad key, input or ciphertext), as Apple reports
/// them, and a used-up secure memory pool `errSecAllocate`.
private func crypto<T>(_ body: () throws -> T) throws(KeychainFailure) -> T {
    do {
        return try body()
    } catch let failure as KeychainFailure {
        throw failure
    } catch let failure as CryptoError where failure == .secureMemoryExhausted {
        throw KeychainFailure(errSecAllocate)
    } catch {
        throw KeychainFailure(errSecParam)
    }
}

/// Runs `body`, reporting a failure through Apple's `CFErrorRef *` out-parameter.
private func perform<T>(_ error: UnsafeMutablePointer<Unmanaged<CFError>?>?,
                        _ body: () throws(KeychainFailure) -> T) -> T? {
    do {
        return try body()
    } catch let failure {
        error?.pointee = Unmanaged.passRetained(NSError(domain: NSOSStatusErrorDomain, code: Int(failure.status)))
        return nil
    }
}

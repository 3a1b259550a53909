// SPDX-License-Identifier: Apache-2.0
// What Apple's keychain derives from a key's external representation (mapping §6.4): size and application label.

import Foundation
import SecretCrypto

/// A key given as Apple's external representation: RSA as PKCS#1, elliptic-curve as X9.63 (`04‖X‖Y[‖K]`),
/// symmetric as raw bytes.
struct KeyFields {
    /// `kSecAttrKeySizeInBits` (and the effective size).
    let sizeInBits: Int
    /// `kSecAttrApplicationLabel` as Apple derives it for asymmetric keys: SHA-1 of the public key's external
    /// representation; `nil` for symmetric keys, which have no public part.
    let applicationLabel: Data?
    /// `keychain:keyfmt`: `pkcs1`, `x963` or `raw`.
    let format: String
    /// The public key's external representation (the key itself when it is public); `nil` for symmetric keys.
    let publicKey: Data?

    static let rsa: Int64 = 42
    static let ellipticCurve: Int64 = 73
    /// Coordinate lengths of P-256, P-384 and P-521.
    private static let coordinateLengths = [32: 256, 48: 384, 66: 521]

    /// Reads `data` as a key of `keyClass` (0 public, 1 private, 2 symmetric) and `keyType`.
    /// - Throws: as ``init(secret:keyClass:keyType:)``.
    init(data: Data, keyClass: Int64, keyType: Int64) throws(KeychainFailure) {
        guard let secret = try? SecretBytes(copying: data) else { throw KeychainFailure(errSecAllocate) }
        try self.init(secret: secret, keyClass: keyClass, keyType: keyType)
    }

    /// Reads `secret` as a key of `keyClass` (0 public, 1 private, 2 symmetric) and `keyType`. A private key is
    /// read by SecretCrypto in secure memory, which also checks that its parts belong together; only its public
    /// half is parsed here.
    /// - Throws: `errSecParam` for data that is not such a key; `errSecUnimplemented` for asymmetric key types
    ///   other than RSA and elliptic curves (DSA, …), whose representations are not handled.
    init(secret: SecretBytes, keyClass: Int64, keyType: Int64) throws(KeychainFailure) {
        switch (keyClass, keyType) {
        case (2, _):
            guard !secret.isEmpty else { throw KeychainFailure(errSecParam) }
            sizeInBits = secret.count * 8
            applicationLabel = nil
            format = "raw"
            publicKey = nil
        case (1, Self.ellipticCurve):
            guard let key = try? ECPrivateKey(x963: secret) else { throw KeychainFailure(errSecParam) }
            self = try KeyFields(data: Data(key.publicKey.x963), keyClass: 0, keyType: keyType)
        case (1, Self.rsa):
            guard let key = try? RSAPrivateKey(pkcs1: secret) else { throw KeychainFailure(errSecParam) }
            self = try KeyFields(data: Data(key.publicKey.pkcs1), keyClass: 0, keyType: keyType)
        case (0, Self.ellipticCurve):
            let bytes = secret.copyBytes()
            let length = (bytes.count - 1) / 2
            guard bytes.first == 0x04, (bytes.count - 1) % 2 == 0, let bits = Self.coordinateLengths[length] else {
                throw KeychainFailure(errSecParam)
            }
            sizeInBits = bits
            publicKey = Data(bytes)
            applicationLabel = try Self.sha1(bytes)
            format = "x963"
        case (0, Self.rsa):
            let (modulus, publicKey) = try Self.rsaPublicKey(secret.copyBytes())
            sizeInBits = modulus
            applicationLabel = try Self.sha1(publicKey)
            format = "pkcs1"
            self.publicKey = Data(publicKey)
        case (0, _), (1, _):
            throw KeychainFailure(errSecUnimplemented)
        default:
            throw KeychainFailure(errSecParam)
        }
    }

    /// The modulus size in bits of a PKCS#1 RSAPublicKey, and the DER itself.
    private static func rsaPublicKey(_ bytes: [UInt8]) throws(KeychainFailure) -> (Int, [UInt8]) {
        do {
            var outer = DERReader(bytes[...])
            let sequence = try outer.next(DERElement.sequence)
            guard outer.isAtEnd else { throw DERError() }
            let integers = try sequence.children()
            guard integers.allSatisfy({ $0.tag == DERElement.integer }), integers.count == 2 else { throw DERError() }
            let significant = integers[0].content.drop { $0 == 0 }
            guard let top = significant.first else { throw DERError() }
            return ((significant.count - 1) * 8 + (8 - top.leadingZeroBitCount), bytes)
        } catch {
            throw KeychainFailure(errSecParam)
        }
    }

    private static func sha1(_ bytes: [UInt8]) throws(KeychainFailure) -> Data {
        do {
            return Data(try SHA1.digest(bytes))
        } catch {
            throw KeychainFailure(errSecInternalComponent)  // libgcrypt unusable
        }
    }
}

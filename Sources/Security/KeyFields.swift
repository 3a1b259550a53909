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
    /// - Throws: `errSecParam` for data that is not such a key; `errSecUnimplemented` for asymmetric key types
    ///   other than RSA and elliptic curves (DSA, …), whose representations are not handled.
    init(data: Data, keyClass: Int64, keyType: Int64) throws(KeychainFailure) {
        let bytes = Array(data)
        switch (keyClass, keyType) {
        case (2, _):
            guard !bytes.isEmpty else { throw KeychainFailure(errSecParam) }
            sizeInBits = bytes.count * 8
            applicationLabel = nil
            format = "raw"
            publicKey = nil
        case (0, Self.ellipticCurve), (1, Self.ellipticCurve):
            let parts = keyClass == 0 ? 2 : 3
            let length = (bytes.count - 1) / parts
            guard bytes.first == 0x04, (bytes.count - 1) % parts == 0, let bits = Self.coordinateLengths[length] else {
                throw KeychainFailure(errSecParam)
            }
            sizeInBits = bits
            publicKey = Data(bytes.prefix(1 + 2 * length))
            applicationLabel = try Self.sha1(Array(bytes.prefix(1 + 2 * length)))
            format = "x963"
        case (0, Self.rsa), (1, Self.rsa):
            let (modulus, publicKey) = try Self.rsaPublicKey(bytes, isPrivate: keyClass == 1)
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

    /// The modulus size in bits and the PKCS#1 RSAPublicKey DER of a PKCS#1 public or private key.
    private static func rsaPublicKey(_ bytes: [UInt8], isPrivate: Bool) throws(KeychainFailure) -> (Int, [UInt8]) {
        do {
            var outer = DERReader(bytes[...])
            let sequence = try outer.next(DERElement.sequence)
            guard outer.isAtEnd else { throw DERError() }
            let integers = try sequence.children()
            guard integers.allSatisfy({ $0.tag == DERElement.integer }),
                  isPrivate ? integers.count >= 9 : integers.count == 2
            else { throw DERError() }
            let modulus = integers[isPrivate ? 1 : 0]
            let exponent = integers[isPrivate ? 2 : 1]
            let significant = modulus.content.drop { $0 == 0 }
            guard let top = significant.first else { throw DERError() }
            let bits = (significant.count - 1) * 8 + (8 - top.leadingZeroBitCount)
            if !isPrivate { return (bits, bytes) }
            let body = Array(modulus.encoding) + Array(exponent.encoding)
            return (bits, [DERElement.sequence] + derLength(body.count) + body)
        } catch {
            throw KeychainFailure(errSecParam)
        }
    }

    /// A DER definite length.
    private static func derLength(_ length: Int) -> [UInt8] {
        guard length >= 0x80 else { return [UInt8(length)] }
        var octets: [UInt8] = []
        var rest = length
        while rest > 0 {
            octets.insert(UInt8(rest & 0xff), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(octets.count)] + octets
    }

    private static func sha1(_ bytes: [UInt8]) throws(KeychainFailure) -> Data {
        do {
            return Data(try SHA1.digest(bytes))
        } catch {
            throw KeychainFailure(errSecInternalComponent)  // libgcrypt unusable
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// The attributes Apple's keychain derives from a certificate's DER (mapping §6.4), read with DERReader.

import Foundation
import SecretCrypto

/// What a certificate contributes to its keychain item: version, serial number, issuer, subject, key identifiers.
struct CertificateFields {
    /// `kSecAttrCertificateType`: the X.509 version (1–3), as Apple stores it.
    let certificateType: Int
    /// `kSecAttrSerialNumber`: the serial number's content bytes.
    let serialNumber: Data
    /// `kSecAttrIssuer`: the issuer Name's DER (not Apple's normalised form; see the README's deviations).
    let issuer: Data
    /// `kSecAttrSubject`: the subject Name's DER.
    let subject: Data
    /// `kSecAttrSubjectKeyID`: the subject key identifier extension's value, if present.
    let subjectKeyID: Data?
    /// `kSecAttrPublicKeyHash`: SHA-1 of the subject public key's bits.
    let publicKeyHash: Data
    /// The subject's common name, else its last attribute value: the default label.
    let summary: String
    /// The subject public key as Apple's external representation with its `kSecAttrKeyType` (RSA: the PKCS#1
    /// RSAPublicKey inside the bit string; elliptic curves: the X9.63 point), or `nil` for other algorithms.
    let publicKey: (data: Data, keyType: Int64)?

    /// `kSecAttrCertificateEncoding` for DER, Apple's only value on iOS.
    static let derEncoding = 3

    private static let subjectKeyIdentifierOID: [UInt8] = [0x55, 0x1d, 0x0e]  // 2.5.29.14
    private static let commonNameOID: [UInt8] = [0x55, 0x04, 0x03]  // 2.5.4.3
    private static let keyTypes: [[UInt8]: Int64] = [
        [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01]: KeyFields.rsa,  // 1.2.840.113549.1.1.1 rsaEncryption
        [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01]: KeyFields.ellipticCurve,  // 1.2.840.10045.2.1 id-ecPublicKey
    ]

    /// Parses a DER certificate.
    /// - Throws: `errSecParam` when `der` is not one (Apple's answer to undecodable certificate data).
    init(der: Data) throws(KeychainFailure) {
        do {
            let bytes = Array(der)
            var outer = DERReader(bytes[...])
            let certificate = try outer.next(DERElement.sequence)
            guard outer.isAtEnd else { throw DERError() }
            var parts = DERReader(certificate.content)
            var tbs = DERReader(try parts.next(DERElement.sequence).content)
            var element = try tbs.next()
            var version = 1
            if element.tag == DERElement.context(0) {
                var explicit = DERReader(element.content)
                let number = try explicit.next(DERElement.integer).content
                guard number.count == 1, number.first! <= 2 else { throw DERError() }
                version = Int(number.first!) + 1
                element = try tbs.next()
            }
            guard element.tag == DERElement.integer, !element.content.isEmpty else { throw DERError() }
            serialNumber = Data(element.content)
            _ = try tbs.next(DERElement.sequence)  // signature algorithm
            let issuerName = try tbs.next(DERElement.sequence)
            _ = try tbs.next(DERElement.sequence)  // validity
            let subjectName = try tbs.next(DERElement.sequence)
            var keyInfo = DERReader(try tbs.next(DERElement.sequence).content)
            var algorithm = DERReader(try keyInfo.next(DERElement.sequence).content)
            let algorithmID = try algorithm.next()
            let keyBits = try keyInfo.next(DERElement.bitString).content
            guard keyBits.first == 0 else { throw DERError() }  // whole bytes only
            publicKey = Self.keyTypes[Array(algorithmID.content)].map { (Data(keyBits.dropFirst()), $0) }
            var keyID: Data?
            while !tbs.isAtEnd {
                let optional = try tbs.next()
                guard optional.tag == DERElement.context(3) else { continue }  // issuer/subject unique IDs
                keyID = try Self.subjectKeyID(in: optional)
            }
            certificateType = version
            issuer = Data(issuerName.encoding)
            subject = Data(subjectName.encoding)
            subjectKeyID = keyID
            publicKeyHash = Data(try SHA1.digest(Array(keyBits.dropFirst())))
            summary = try Self.summary(of: subjectName)
        } catch is DERError {
            throw KeychainFailure(errSecParam)
        } catch {
            throw KeychainFailure(errSecInternalComponent)  // libgcrypt unusable
        }
    }

    /// The subject key identifier inside the `[3]` extensions wrapper.
    private static func subjectKeyID(in extensions: DERElement) throws(DERError) -> Data? {
        var wrapper = DERReader(extensions.content)
        for item in try wrapper.next(DERElement.sequence).children() {
            var fields = DERReader(item.content)
            guard try fields.next(DERElement.objectIdentifier).content.elementsEqual(subjectKeyIdentifierOID) else {
                continue
            }
            var value = try fields.next()
            if value.tag == 0x01 { value = try fields.next() }  // the optional `critical` boolean
            guard value.tag == DERElement.octetString else { throw DERError() }
            var inner = DERReader(value.content)
            return Data(try inner.next(DERElement.octetString).content)
        }
        return nil
    }

    /// The common name, else the last attribute value, of a Name.
    private static func summary(of name: DERElement) throws(DERError) -> String {
        var last = ""
        for relative in try name.children() {
            for attribute in try relative.children() {
                var fields = DERReader(attribute.content)
                let type = try fields.next(DERElement.objectIdentifier).content
                let text = String(decoding: try fields.next().content, as: UTF8.self)
                if type.elementsEqual(commonNameOID) { return text }
                last = text
            }
        }
        return last
    }
}

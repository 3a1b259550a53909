// SPDX-License-Identifier: Apache-2.0
// SecCertificate: a certificate object for kSecValueRef and kSecReturnRef, holding DER bytes and nothing more.

public import Foundation

// Apple's "Storing a certificate in the keychain" flow creates a SecCertificate from DER, adds it with
// kSecValueRef and reads it back with kSecReturnRef. Storing and returning the DER is mechanical (mapping §6.4),
// so this object is honest: it checks that the bytes parse as an X.509 certificate and offers no trust
// evaluation, public-key extraction or other cryptography.

/// A certificate: its DER encoding, known to parse as X.509.
public final class SecCertificate: Sendable, Hashable, CustomStringConvertible {
    let der: Data
    let summary: String

    init?(der: Data) {
        guard let fields = try? CertificateFields(der: der) else { return nil }
        self.der = der
        summary = fields.summary
    }

    public static func == (lhs: SecCertificate, rhs: SecCertificate) -> Bool { lhs.der == rhs.der }
    public func hash(into hasher: inout Hasher) { hasher.combine(der) }
    public var description: String { "<cert(\(summary))>" }
}

/// Creates a certificate from its DER encoding, or returns `nil` when the data is not a DER X.509 certificate.
/// - Parameters:
///   - allocator: ignored, as callers pass `nil` or `kCFAllocatorDefault`.
///   - data: the DER bytes.
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? {
    SecCertificate(der: Data(referencing: data))
}

/// The certificate's DER encoding.
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData {
    ContiguousData(certificate.der)
}

/// The subject's common name (else its last attribute value), as Apple summarises a certificate.
public func SecCertificateCopySubjectSummary(_ certificate: SecCertificate) -> CFString? {
    NSString(string: certificate.summary)
}

/// The certificate's public key (RSA or elliptic curve), or `nil` for other algorithms or a key that does not
/// parse. Taking it out of the certificate is parsing; nothing here checks the certificate's signature.
public func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey? {
    guard let fields = try? CertificateFields(der: certificate.der), let publicKey = fields.publicKey else { return nil }
    return SecKey(data: publicKey.data, keyClass: 0, keyType: publicKey.keyType)
}

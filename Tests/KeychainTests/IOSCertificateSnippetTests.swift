// SPDX-License-Identifier: Apache-2.0
// The iOS "store a certificate, read it back as a SecCertificate" flow, compiled as written.

#if canImport(Security)
import Security
#else
import Keychain
#endif
import Foundation
import Testing

private enum CertificateStoreError: Error {
    case invalidCertificate
    case unhandledError(status: OSStatus)
}

private func storeCertificate(_ der: Data, label: String) throws {
    guard let certificate = SecCertificateCreateWithData(kCFAllocatorDefault, der as CFData) else {
        throw CertificateStoreError.invalidCertificate
    }
    let addquery: [String: Any] = [kSecClass as String: kSecClassCertificate,
                                   kSecValueRef as String: certificate,
                                   kSecAttrLabel as String: label]
    let status = SecItemAdd(addquery as CFDictionary, nil)
    guard status == errSecSuccess else { throw CertificateStoreError.unhandledError(status: status) }
}

private func loadCertificate(label: String) throws -> SecCertificate {
    let getquery: [String: Any] = [kSecClass as String: kSecClassCertificate,
                                   kSecAttrLabel as String: label,
                                   kSecReturnRef as String: kCFBooleanTrue!]
    var item: CFTypeRef?
    let status = SecItemCopyMatching(getquery as CFDictionary, &item)
    guard status == errSecSuccess else { throw CertificateStoreError.unhandledError(status: status) }
    let certificate = item as! SecCertificate
    return certificate
}

extension KeychainSuites {
    @Suite("iOS certificate snippets")
    struct IOSCertificateSnippetTests {
        @Test("a SecCertificate is stored with kSecValueRef and comes back with kSecReturnRef",
              arguments: Provider.allCases)
        func storeAndLoad(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                #expect(SecCertificateCreateWithData(nil, Data("not a certificate".utf8) as CFData) == nil)
                try storeCertificate(CertificateTests.der, label: "My Certificate")
                #expect(throws: CertificateStoreError.self) { try storeCertificate(CertificateTests.der, label: "x") }

                let certificate = try loadCertificate(label: "My Certificate")
                let summary = SecCertificateCopySubjectSummary(certificate) as String?
                #expect(summary == "keychain.test")
                let der = SecCertificateCopyData(certificate) as Data
                #expect(der == CertificateTests.der)

                // The reference beside attributes, and in a list.
                var item: CFTypeRef?
                let both: [String: Any] = [kSecClass as String: kSecClassCertificate,
                                           kSecReturnRef as String: true, kSecReturnAttributes as String: true]
                #expect(SecItemCopyMatching(both as CFDictionary, &item) == errSecSuccess)
                let attributes = try #require(item as? [String: Any])
                #expect(attributes[kSecAttrLabel as String] as? String == "My Certificate")
                #expect(attributes[kSecValueRef as String] as? SecCertificate == certificate)
                let all: [String: Any] = [kSecClass as String: kSecClassCertificate, kSecReturnRef as String: true,
                                          kSecMatchLimit as String: kSecMatchLimitAll]
                #expect(SecItemCopyMatching(all as CFDictionary, &item) == errSecSuccess)
                #expect((item as? [SecCertificate])?.map { SecCertificateCopyData($0) as Data } == [CertificateTests.der])

                // The class may be left out: the reference names it. The add hands back the same object.
                #expect(SecItemDelete([kSecClass: kSecClassCertificate] as CFDictionary) == errSecSuccess)
                let added = SecItemAdd([kSecValueRef as String: certificate, kSecReturnRef as String: true]
                                       as CFDictionary, &item)
                #expect(added == errSecSuccess)
                #expect(item as? SecCertificate == certificate)
                #expect(try loadCertificate(label: "keychain.test") == certificate)
            }
        }
    }
}

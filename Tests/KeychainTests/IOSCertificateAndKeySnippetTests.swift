// SPDX-License-Identifier: Apache-2.0
// The iOS "store a certificate or key, read it back as a SecCertificate or SecKey" flows, compiled as written.

import Security
import Foundation
import SecretServiceTestSupport
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

private func importPrivateKey(_ externalRepresentation: Data) throws -> SecKey {
    let options: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                                  kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
                                  kSecAttrKeySizeInBits as String: 256]
    var error: Unmanaged<CFError>?
    guard let key = SecKeyCreateWithData(externalRepresentation as CFData, options as CFDictionary, &error) else {
        throw error!.takeRetainedValue() as any Error
    }
    return key
}

private func storeKey(_ key: SecKey, tag: String) throws {
    let tag = tag.data(using: .utf8)!
    let addquery: [String: Any] = [kSecClass as String: kSecClassKey,
                                   kSecAttrApplicationTag as String: tag,
                                   kSecValueRef as String: key]
    let status = SecItemAdd(addquery as CFDictionary, nil)
    guard status == errSecSuccess else { throw CertificateStoreError.unhandledError(status: status) }
}

private func loadKey(tag: String) throws -> SecKey {
    let tag = tag.data(using: .utf8)!
    let getquery: [String: Any] = [kSecClass as String: kSecClassKey,
                                   kSecAttrApplicationTag as String: tag,
                                   kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                                   kSecReturnRef as String: true]
    var item: CFTypeRef?
    let status = SecItemCopyMatching(getquery as CFDictionary, &item)
    guard status == errSecSuccess else { throw CertificateStoreError.unhandledError(status: status) }
    let key = item as! SecKey
    return key
}

// The key-store shape apps use for keys made elsewhere (CryptoKit-style x963 or raw representations):
// CFString-keyed literals coerced to [String: Any], a switch over the status, and an OSStatus message extension.

private struct KeyStoreError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension OSStatus {
    var message: String {
        (SecCopyErrorMessageString(self, nil) as String?) ?? String(self)
    }
}

private func storeKey(x963Representation: Data, label: String) throws {
    let attributes = [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom,
                      kSecAttrKeyClass: kSecAttrKeyClassPrivate] as [String: Any]
    var error: Unmanaged<CFError>?
    guard let secKey = SecKeyCreateWithData(x963Representation as CFData, attributes as CFDictionary, &error) else {
        throw KeyStoreError(error.debugDescription)
    }
    let query = [kSecClass: kSecClassKey,
                 kSecAttrApplicationLabel: label,
                 kSecAttrAccessible: kSecAttrAccessibleWhenUnlocked,
                 kSecUseDataProtectionKeychain: true,
                 kSecValueRef: secKey] as [String: Any]
    let status = SecItemAdd(query as CFDictionary, nil)
    guard status == errSecSuccess else { throw KeyStoreError("Unable to store item: \(status.message)") }
}

private func readKey(label: String) throws -> Data? {
    let query = [kSecClass: kSecClassKey,
                 kSecAttrApplicationLabel: label,
                 kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom,
                 kSecUseDataProtectionKeychain: true,
                 kSecReturnRef: true] as [String: Any]
    var item: CFTypeRef?
    var secKey: SecKey
    switch SecItemCopyMatching(query as CFDictionary, &item) {
    case errSecSuccess: secKey = item as! SecKey
    case errSecItemNotFound: return nil
    case let status: throw KeyStoreError("Keychain read failed: \(status.message)")
    }
    var error: Unmanaged<CFError>?
    guard let data = SecKeyCopyExternalRepresentation(secKey, &error) as Data? else {
        throw KeyStoreError(error.debugDescription)
    }
    return data
}

private func storeRawKey(_ rawRepresentation: Data, account: String) throws {
    let query = [kSecClass: kSecClassGenericPassword,
                 kSecAttrAccount: account,
                 kSecAttrAccessible: kSecAttrAccessibleWhenUnlocked,
                 kSecUseDataProtectionKeychain: true,
                 kSecValueData: rawRepresentation] as [String: Any]
    let status = SecItemAdd(query as CFDictionary, nil)
    guard status == errSecSuccess else { throw KeyStoreError("Unable to store item: \(status.message)") }
}

private func readRawKey(account: String) throws -> Data? {
    let query = [kSecClass: kSecClassGenericPassword,
                 kSecAttrAccount: account,
                 kSecUseDataProtectionKeychain: true,
                 kSecReturnData: true] as [String: Any]
    var item: CFTypeRef?
    switch SecItemCopyMatching(query as CFDictionary, &item) {
    case errSecSuccess:
        guard let data = item as? Data else { return nil }
        return data
    case errSecItemNotFound: return nil
    case let status: throw KeyStoreError("Keychain read failed: \(status.message)")
    }
}

extension KeychainSuites {
    @Suite("iOS certificate and key snippets")
    struct IOSCertificateAndKeySnippetTests {
        /// A self-signed 1024-bit RSA certificate for `CN=rsa.keychain.test`, made for this test.
        static let rsaCertificate = Data(base64Encoded: """
            MIICFjCCAX+gAwIBAgIUIyY+PU9tE84ud7XdJL0oNvRV5mYwDQYJKoZIhvcNAQELBQAwHDEaMBgGA1UEAwwRcnNhLmtleWNoYWluLnRlc3QwIB\
            cNMjYxMTIyMDk0ODU0WhgPMjEyNjEwMjkwOTQ4NTRaMBwxGjAYBgNVBAMMEXJzYS5rZXljaGFpbi50ZXN0MIGfMA0GCSqGSIb3DQEBAQUAA4GN\
            ADCBiQKBgQDK/2ZCt2Ng2qqVNbDraZAqxCG/jfvEhIC/u/Q+n4SyhVs9DmNl+TPEf9YI4N+KjleO+l7bvsqaduGpchQwsaNTuL97l2u6yWUiRd\
            kVfo3v5fSh2PsIpY60XMXm38V293b79hyfkM8RW+13oT2sLFdvQOjQN3eqD4QE02qW4LMcuQIDAQABo1MwUTAdBgNVHQ4EFgQUo+9ayoBj+iQp\
            praacZmk7kNYgxMwHwYDVR0jBBgwFoAUo+9ayoBj+iQppraacZmk7kNYgxMwDwYDVR0TAQH/BAUwAwEB/zANBgkqhkiG9w0BAQsFAAOBgQCjnR\
            WUIONzp+YuNdcRQ8DAeFR3plvBgfl+q5ZHs7kINKO/jXDGL5zGvPzqcC4lh5cC1bAZwNzkNunhx/qECFDMkZ/gqIJ9l65vjRUcg7VvoufLGrVY\
            o4a7qcgwjVj8thRrxM1hWgNgSKQxoLuJ430T2v3+0v8OJA3hiMaqwpnDQA==
            """)!
        /// Its public key as PKCS#1 RSAPublicKey.
        static let rsaPublicKey = Data(base64Encoded: """
            MIGJAoGBAMr/ZkK3Y2DaqpU1sOtpkCrEIb+N+8SEgL+79D6fhLKFWz0OY2X5M8R/1gjg34qOV476Xtu+ypp24alyFDCxo1O4v3uXa7rJZSJF2R\
            V+je/l9KHY+wiljrRcxebfxXb3dvv2HJ+QzxFb7XehPawsV29A6NA3d6oPhATTapbgsxy5AgMBAAE=
            """)!

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
                // Public-key pinning reads the certificate's key out as bytes.
                let publicKey = try #require(SecCertificateCopyKey(certificate))
                #expect(SecKeyCopyExternalRepresentation(publicKey, nil) as Data? == KeyTests.ecPublic)
                #expect((SecKeyCopyAttributes(publicKey) as? [String: Any])?[kSecAttrKeyClass as String] as? Int == 0)
                let rsaCertificate = try #require(SecCertificateCreateWithData(nil, Self.rsaCertificate as CFData))
                let rsaKey = try #require(SecCertificateCopyKey(rsaCertificate))
                #expect(SecKeyCopyExternalRepresentation(rsaKey, nil) as Data? == Self.rsaPublicKey)
                #expect((SecKeyCopyAttributes(rsaKey) as? [String: Any])?[kSecAttrKeySizeInBits as String] as? Int == 1024)

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

        @Test("a SecKey made from its external representation is stored with kSecValueRef and read back",
              arguments: Provider.allCases)
        func keyRoundTrip(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                let key = try importPrivateKey(KeyTests.ecPrivate)
                #expect(throws: NSError.self) { try importPrivateKey(Data([4, 1, 2])) }
                var error: Unmanaged<CFError>?
                let exported = try #require(SecKeyCopyExternalRepresentation(key, &error) as Data?)
                #expect(exported == KeyTests.ecPrivate && error == nil)
                let publicKey = try #require(SecKeyCopyPublicKey(key))
                #expect(SecKeyCopyExternalRepresentation(publicKey, nil) as Data? == KeyTests.ecPublic)
                let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
                #expect(attributes[kSecAttrKeySizeInBits as String] as? Int == 256)
                #expect(attributes[kSecAttrKeyClass as String] as? Int == 1)
                #expect(attributes[kSecAttrApplicationLabel as String] as? Data == CertificateTests.publicKeyHash)

                try storeKey(key, tag: "com.example.keys.mykey")
                #expect(throws: CertificateStoreError.self) { try storeKey(key, tag: "com.example.keys.mykey") }
                let loaded = try loadKey(tag: "com.example.keys.mykey")
                #expect(loaded == key)
                #expect("\(loaded)" == "<SecKey EC private, 256 bits>")
                #expect(SecKeyCopyExternalRepresentation(loaded, nil) as Data? == KeyTests.ecPrivate)

                // The stored item carries what the key determines, as if its attributes had been given.
                var item: CFTypeRef?
                let query: [String: Any] = [kSecClass as String: kSecClassKey,
                                            kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
                                            kSecReturnAttributes as String: true, kSecReturnRef as String: true]
                #expect(SecItemCopyMatching(query as CFDictionary, &item) == errSecSuccess)
                let stored = try #require(item as? [String: Any])
                #expect(stored[kSecAttrApplicationLabel as String] as? Data == CertificateTests.publicKeyHash)
                #expect(stored[kSecAttrKeyType as String] as? Int == 73)
                #expect(stored[kSecValueRef as String] as? SecKey == key)

                // A stored symmetric key comes back as a SecKey too.
                let symmetric: [String: Any] = [kSecClass as String: kSecClassKey,
                                                kSecAttrKeyClass as String: kSecAttrKeyClassSymmetric,
                                                kSecAttrKeyType as String: 2_147_483_649,  // AES
                                                kSecValueData as String: Data(repeating: 9, count: 16),
                                                kSecReturnRef as String: true]
                #expect(SecItemAdd(symmetric as CFDictionary, &item) == errSecSuccess)
                let aes = try #require(item as? SecKey)
                #expect("\(aes)" == "<SecKey type 2147483649 symmetric, 128 bits>" && SecKeyCopyPublicKey(aes) == nil)

                // With its certificate beside it, the key forms an identity this library cannot return.
                #expect(SecItemAdd([kSecValueRef as String: try #require(
                    SecCertificateCreateWithData(nil, CertificateTests.der as CFData))] as CFDictionary, nil)
                    == errSecSuccess)
                #expect(SecItemCopyMatching([kSecClass: kSecClassIdentity, kSecReturnRef: true] as CFDictionary,
                                            &item) == errSecUnimplemented)
            }
        }

        @Test("the key-store shape: [CFString: …] literals as [String: Any], status switches, messages",
              arguments: Provider.allCases)
        func keyStore(provider: Provider) async throws {
            try await withKeychain(provider) { _, _, _ in
                #expect(try readKey(label: "signing") == nil)
                try storeKey(x963Representation: KeyTests.ecPrivate, label: "signing")
                #expect(try readKey(label: "signing") == KeyTests.ecPrivate)
                do {
                    try storeKey(x963Representation: KeyTests.ecPrivate, label: "signing")
                    Issue.record("a second add of the same key succeeded")
                } catch {
                    #expect("\(error)" == "Unable to store item: The specified item already exists in the keychain.")
                }

                let raw = Data((1...32).map { UInt8($0) })
                #expect(try readRawKey(account: "symmetric") == nil)
                try storeRawKey(raw, account: "symmetric")
                #expect(try readRawKey(account: "symmetric") == raw)
                #expect(OSStatus(-12345).message == "OSStatus -12345")  // Apple's text for a code it does not know
            }
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Keeps item secrets sealed in ordinary memory under a key held in secure memory.

import SecretCrypto

/// A sealed secret: AES-256-GCM ciphertext and tag, plus its nonce.
struct SealedSecret: Sendable {
    var nonce: [UInt8]
    var sealed: [UInt8]
    var contentType: String
}

/// Seals each item's secret under one random key kept in libgcrypt secure memory, so secure memory stays small
/// (32 bytes a collection) however many secrets a collection holds, and plaintext exists only briefly, in secure
/// memory, while a caller reads it. The item's identity is bound as associated data, so sealed values cannot be
/// swapped between items.
struct SecretVault: Sendable {
    private let key: SecretBytes

    init() {
        key = SecureRandom.secretBytes(count: 32)
    }

    func seal(_ secret: StoredSecret, binding identity: String) throws -> SealedSecret {
        let nonce = SecureRandom.bytes(count: 12)
        let sealed = try AES256GCM.seal(secret.value, key: key, nonce: nonce, associatedData: Array(identity.utf8))
        return SealedSecret(nonce: nonce, sealed: sealed, contentType: secret.contentType)
    }

    func open(_ sealed: SealedSecret, binding identity: String) throws -> StoredSecret {
        let value = try AES256GCM.open(sealed.sealed, key: key, nonce: sealed.nonce,
                                       associatedData: Array(identity.utf8))
        return StoredSecret(value: value, contentType: sealed.contentType)
    }
}

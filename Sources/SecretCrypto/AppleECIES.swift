// SPDX-License-Identifier: Apache-2.0
// Apple's ECIES (SecKeyAlgorithm.eciesEncryption…X963SHA…AESGCM), byte for byte as iOS writes it.

internal import CGcrypt

/// ECIES as Apple's Security framework defines it for `SecKeyCreateEncryptedData`:
///
/// - a fresh ephemeral key on the recipient's curve; Z = ECDH(ephemeral, recipient) (the X coordinate);
/// - X9.63 KDF over Z with the ephemeral public key (`04‖X‖Y`) as SharedInfo;
/// - AES-GCM with a 128-bit key for curves up to 256 bits, 256-bit otherwise, no associated data, 16-byte tag;
/// - the IV is 16 zero bytes, or for the "VariableIV" algorithms the 16 KDF bytes after the key;
/// - output: ephemeral public key ‖ ciphertext ‖ tag.
///
/// Standard and cofactor variants are the same on NIST curves (cofactor 1).
public enum AppleECIES {
    static let tagByteCount = 16
    static let ivByteCount = 16

    /// Encrypts `plaintext` to `recipient`.
    ///
    /// The corresponding C functions are `gcry_pk_genkey`, `gcry_mpi_ec_mul`, `gcry_md_*` and `gcry_cipher_*`
    /// (AES-GCM).
    public static func seal(_ plaintext: SecretBytes, to recipient: ECPublicKey, kdf: DigestAlgorithm,
                            variableIV: Bool) throws -> [UInt8] {
        try seal(plaintext, to: recipient, ephemeral: ECPrivateKey.generate(curve: recipient.curve), kdf: kdf,
                 variableIV: variableIV)
    }

    /// ``seal(_:to:kdf:variableIV:)`` with a given ephemeral key, for known-answer tests.
    static func seal(_ plaintext: SecretBytes, to recipient: ECPublicKey, ephemeral: ECPrivateKey,
                     kdf: DigestAlgorithm, variableIV: Bool) throws -> [UInt8] {
        let shared = try ephemeral.sharedSecret(with: recipient)
        var sealed = [UInt8](repeating: 0, count: plaintext.count + tagByteCount)
        try withCipher(shared, ephemeral.publicKey, kdf: kdf, variableIV: variableIV) { cipher in
            try sealed.withUnsafeMutableBytes { output in
                try cipher.finalize()
                try plaintext.withUnsafeBytes { input in
                    if input.count > 0 {
                        let target = UnsafeMutableRawBufferPointer(rebasing: output[..<input.count])
                        try cipher.encrypt(into: target, from: input)
                    }
                }
                try cipher.tag(into: UnsafeMutableRawBufferPointer(rebasing: output[plaintext.count...]))
            }
        }
        return ephemeral.publicKey.x963 + sealed
    }

    /// Decrypts the output of ``seal(_:to:kdf:variableIV:)`` (or of iOS) with the recipient's key.
    /// - Throws: ``CryptoError/invalidCiphertext`` when the input is too short or its ephemeral key is not a point
    ///   on the curve; ``CryptoError/authenticationFailed`` when the tag does not match.
    public static func open(_ ciphertext: [UInt8], with key: ECPrivateKey, kdf: DigestAlgorithm,
                            variableIV: Bool) throws -> SecretBytes {
        let pointLength = key.publicKey.x963.count
        guard ciphertext.count >= pointLength + tagByteCount else { throw CryptoError.invalidCiphertext }
        guard let ephemeral = try? ECPublicKey(x963: Array(ciphertext[..<pointLength])),
              ephemeral.curve == key.publicKey.curve
        else { throw CryptoError.invalidCiphertext }
        let shared = try key.sharedSecret(with: ephemeral)
        let bodyCount = ciphertext.count - pointLength - tagByteCount
        let plaintext = try SecretBytes(count: bodyCount)
        try withCipher(shared, ephemeral, kdf: kdf, variableIV: variableIV) { cipher in
            try ciphertext.withUnsafeBytes { input in
                try cipher.finalize()
                if bodyCount > 0 {
                    let body = UnsafeRawBufferPointer(rebasing: input[pointLength..<(pointLength + bodyCount)])
                    try plaintext.withUnsafeMutableBytes { try cipher.decrypt(into: $0, from: body) }
                }
                // On mismatch `plaintext` is released (and wiped) unreturned.
                try cipher.checkTag(UnsafeRawBufferPointer(rebasing: input[(pointLength + bodyCount)...]))
            }
        }
        return plaintext
    }

    /// Calls `body` with an AES-GCM context keyed and IV'd for one message.
    private static func withCipher(_ shared: SecretBytes, _ ephemeral: ECPublicKey, kdf: DigestAlgorithm,
                                   variableIV: Bool, _ body: (borrowing CipherHandle) throws -> Void) throws {
        let keyLength = ephemeral.curve.bits > 256 ? 32 : 16
        let material = try X963KDF.derive(shared, sharedInfo: ephemeral.x963,
                                          length: keyLength + (variableIV ? ivByteCount : 0), digest: kdf)
        let key = try material.withUnsafeBytes {
            try SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0[..<keyLength]))
        }
        let iv = variableIV
            ? try material.withUnsafeBytes { try SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0[keyLength...])) }
            : try SecretBytes(count: ivByteCount)
        let cipher = try CipherHandle(algorithm: keyLength == 32 ? cgcry_cipher_aes256 : cgcry_cipher_aes128,
                                      mode: cgcry_cipher_mode_gcm)
        try cipher.setKey(key)
        try cipher.setIV(iv)
        try body(cipher)
    }
}

// SPDX-License-Identifier: Apache-2.0
// AES-128-CBC vectors: NIST SP 800-38A F.2.1 (raw CBC) plus PKCS#7-padded outputs computed with Python `cryptography`.

/// AES-128-CBC known answers.
enum AESCBCVectors {
    /// SP 800-38A F.2.1 key.
    static let key = [UInt8](hex: "2b7e151628aed2a6abf7158809cf4f3c")
    /// SP 800-38A F.2.1 IV.
    static let iv = [UInt8](hex: "000102030405060708090a0b0c0d0e0f")
    /// SP 800-38A F.2.1 plaintext (four blocks).
    static let plaintext = [UInt8](hex: """
        6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51
        30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710
        """)
    /// SP 800-38A F.2.1 ciphertext (four blocks, no padding).
    static let rawCiphertext = [UInt8](hex: """
        7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2
        73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7
        """)
    /// PKCS#7 output for the F.2.1 plaintext: the raw ciphertext plus one encrypted block of sixteen 0x10 bytes.
    static let paddedCiphertext = rawCiphertext + [UInt8](hex: "8cb82807230e1321d3fae00d18cc2012")
    /// PKCS#7 output for an empty plaintext under the F.2.1 key and IV (one pad block).
    static let emptyCiphertext = [UInt8](hex: "c84af0b613435d5d9182801a9bd9320b")
    /// PKCS#7 output for "hello" under the F.2.1 key and IV.
    static let helloCiphertext = [UInt8](hex: "d8666ea8aad65cc08354b4bc43d4ff56")
}

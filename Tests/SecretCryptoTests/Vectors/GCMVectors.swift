// SPDX-License-Identifier: Apache-2.0
// AES-256-GCM vectors from McGrew & Viega, "The Galois/Counter Mode of Operation" (test cases 13, 14 and 16),
// re-checked with Python `cryptography`.

/// One AES-256-GCM known-answer case.
struct GCMVector: Sendable {
    let name: String
    let key: [UInt8]
    let nonce: [UInt8]
    let plaintext: [UInt8]
    let associatedData: [UInt8]
    let ciphertext: [UInt8]
    let tag: [UInt8]
}

/// The GCM specification's 256-bit cases with a 96-bit IV.
enum GCMVectors {
    static let all: [GCMVector] = [
        GCMVector(
            name: "GCM test case 13 (empty)",
            key: [UInt8](repeating: 0, count: 32),
            nonce: [UInt8](repeating: 0, count: 12),
            plaintext: [],
            associatedData: [],
            ciphertext: [],
            tag: [UInt8](hex: "530f8afbc74536b9a963b4f1c4cb738b")),
        GCMVector(
            name: "GCM test case 14 (one zero block)",
            key: [UInt8](repeating: 0, count: 32),
            nonce: [UInt8](repeating: 0, count: 12),
            plaintext: [UInt8](repeating: 0, count: 16),
            associatedData: [],
            ciphertext: [UInt8](hex: "cea7403d4d606b6e074ec5d3baf39d18"),
            tag: [UInt8](hex: "d0d1c8a799996bf0265b98b5d48ab919")),
        GCMVector(
            name: "GCM test case 16 (partial block, with AAD)",
            key: [UInt8](hex: "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"),
            nonce: [UInt8](hex: "cafebabefacedbaddecaf888"),
            plaintext: [UInt8](hex: """
                d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72
                1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39
                """),
            associatedData: [UInt8](hex: "feedfacedeadbeeffeedfacedeadbeefabaddad2"),
            ciphertext: [UInt8](hex: """
                522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa
                8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662
                """),
            tag: [UInt8](hex: "76fc6ece0f4e1768cddf8853bb2d551b")),
    ]
}

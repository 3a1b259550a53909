// SPDX-License-Identifier: Apache-2.0
// RFC 5869 Appendix A test cases 1-3 (HKDF with SHA-256).

/// One HKDF-SHA256 known-answer case.
struct HKDFVector: Sendable {
    let name: String
    let ikm: [UInt8]
    let salt: [UInt8]
    let info: [UInt8]
    let length: Int
    let prk: [UInt8]
    let okm: [UInt8]
}

/// The RFC 5869 SHA-256 cases.
enum HKDFVectors {
    static let all: [HKDFVector] = [
        HKDFVector(
            name: "RFC 5869 A.1 (basic)",
            ikm: [UInt8](repeating: 0x0B, count: 22),
            salt: [UInt8](hex: "000102030405060708090a0b0c"),
            info: [UInt8](hex: "f0f1f2f3f4f5f6f7f8f9"),
            length: 42,
            prk: [UInt8](hex: "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5"),
            okm: [UInt8](hex: """
                3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865
                """)),
        HKDFVector(
            name: "RFC 5869 A.2 (long inputs)",
            ikm: [UInt8](0x00...0x4F),
            salt: [UInt8](0x60...0xAF),
            info: [UInt8](0xB0...0xFF),
            length: 82,
            prk: [UInt8](hex: "06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244"),
            okm: [UInt8](hex: """
                b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09
                da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87
                """)),
        HKDFVector(
            name: "RFC 5869 A.3 (zero-length salt and info)",
            ikm: [UInt8](repeating: 0x0B, count: 22),
            salt: [],
            info: [],
            length: 42,
            prk: [UInt8](hex: "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04"),
            okm: [UInt8](hex: """
                8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8
                """)),
    ]
}

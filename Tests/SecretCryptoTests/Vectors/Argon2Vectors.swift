// SPDX-License-Identifier: Apache-2.0
// Argon2id (v0x13) vectors: RFC 9106 §5.3, plus vectors computed with the reference implementation through
// Python `argon2-cffi` (`argon2.low_level.hash_secret_raw(..., type=Type.ID)`).

import SecretCrypto

/// One Argon2id known-answer case.
struct Argon2Vector: Sendable {
    let name: String
    let password: [UInt8]
    let salt: [UInt8]
    let secret: [UInt8]
    let associatedData: [UInt8]
    let parameters: Argon2idParameters
    let tag: [UInt8]
}

/// Argon2id known answers.
enum Argon2Vectors {
    /// RFC 9106 §5.3: password 32 × 0x01, salt 16 × 0x02, secret 8 × 0x03, ad 12 × 0x04, t = 3, m = 32, p = 4.
    static let rfc9106 = Argon2Vector(
        name: "RFC 9106 §5.3",
        password: [UInt8](repeating: 0x01, count: 32),
        salt: [UInt8](repeating: 0x02, count: 16),
        secret: [UInt8](repeating: 0x03, count: 8),
        associatedData: [UInt8](repeating: 0x04, count: 12),
        parameters: Argon2idParameters(iterations: 3, memoryKiB: 32, parallelism: 4),
        tag: [UInt8](hex: "0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659"))

    /// The default parameters (t = 4, m = 64 MiB, p = 1) with a 16-byte salt (argon2-cffi).
    static let defaultParameters = Argon2Vector(
        name: "Argon2idParameters.default (argon2-cffi)",
        password: Array("correct horse battery staple".utf8), salt: [UInt8](repeating: 0x5A, count: 16),
        secret: [], associatedData: [], parameters: .default,
        tag: [UInt8](hex: "9661da6c0cf8784bdd0c342d400d1a91a57dc3ed416038c7905080c531fa44b6"))

    /// Vectors without secret or associated data (the public API).
    static let plain: [Argon2Vector] = [
        Argon2Vector(
            name: "reference test.c: password/somesalt, t=2, m=64 MiB, p=1",
            password: Array("password".utf8), salt: Array("somesalt".utf8), secret: [], associatedData: [],
            parameters: Argon2idParameters(iterations: 2, memoryKiB: 65536, parallelism: 1),
            tag: [UInt8](hex: "09316115d5cf24ed5a15a31a3ba326e5cf32edc24702987c02b6566f61913cf7")),
        Argon2Vector(
            name: "RFC 9106 inputs without secret/ad (argon2-cffi)",
            password: [UInt8](repeating: 0x01, count: 32), salt: [UInt8](repeating: 0x02, count: 16),
            secret: [], associatedData: [],
            parameters: Argon2idParameters(iterations: 3, memoryKiB: 32, parallelism: 4),
            tag: [UInt8](hex: "03aab965c12001c9d7d0d2de33192c0494b684bb148196d73c1df1acaf6d0c2e")),
        Argon2Vector(
            name: "t=3, m=256 KiB, p=1, 16-byte salt (argon2-cffi)",
            password: Array("correct horse battery staple".utf8), salt: [UInt8](0x00...0x0F),
            secret: [], associatedData: [],
            parameters: Argon2idParameters(iterations: 3, memoryKiB: 256, parallelism: 1),
            tag: [UInt8](hex: "19bc829fd8a9a5a984947bccf2f0e74cb99b546ddfd455123d6807772aaf4c1d")),
        Argon2Vector(
            name: "t=1, m=64 KiB, p=2, 64-byte output (argon2-cffi)",
            password: Array("pw".utf8), salt: Array("saltsalt".utf8), secret: [], associatedData: [],
            parameters: Argon2idParameters(iterations: 1, memoryKiB: 64, parallelism: 2),
            tag: [UInt8](hex: """
                722cd5e3705aee6cd240075755098bfc24d951c93cb16a72a94989e2dd32b14a
                13ea9e6675eb3963c7beceb8c83d405748cd7ef82bdeeaf1025a5b5440201f39
                """)),
        Argon2Vector(
            name: "t=1, m=64 KiB, p=2, 16-byte output (argon2-cffi)",
            password: Array("pw".utf8), salt: Array("saltsalt".utf8), secret: [], associatedData: [],
            parameters: Argon2idParameters(iterations: 1, memoryKiB: 64, parallelism: 2),
            tag: [UInt8](hex: "f0197f756f92b77047ff375b1443669e")),
        Argon2Vector(
            name: "t=1, m=64 KiB, p=2, 4-byte output (argon2-cffi)",
            password: Array("pw".utf8), salt: Array("saltsalt".utf8), secret: [], associatedData: [],
            parameters: Argon2idParameters(iterations: 1, memoryKiB: 64, parallelism: 2),
            tag: [UInt8](hex: "c0843200")),
        Argon2Vector(
            name: "t=1, m=64 KiB, p=2, 37-byte output (argon2-cffi)",
            password: Array("pw".utf8), salt: Array("saltsalt".utf8), secret: [], associatedData: [],
            parameters: Argon2idParameters(iterations: 1, memoryKiB: 64, parallelism: 2),
            tag: [UInt8](hex: "32da2a4d3622b17eef592638ac169f3794060f89322d087e97ab32eba2b00e5263b550c96d")),
        Argon2Vector(
            name: "t=1, m=64 KiB, p=2, 100-byte output (argon2-cffi)",
            password: Array("pw".utf8), salt: Array("saltsalt".utf8), secret: [], associatedData: [],
            parameters: Argon2idParameters(iterations: 1, memoryKiB: 64, parallelism: 2),
            tag: [UInt8](hex: """
                325fc9930a7a64a1305413610a412967a80b1d0ca3aba1c09546b735f26eb25850deda75a9b972399e253d929bbe8d9b
                f12c5f62e185a9c5cd8a3b438b84cbfd05d9bee63c292fd6a8c825f697531e0cb751f1ccf28b7e8882743e97b49a1901
                2637b10a
                """)),
    ]
}

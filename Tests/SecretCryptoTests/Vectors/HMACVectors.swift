// SPDX-License-Identifier: Apache-2.0
// RFC 4231 HMAC-SHA256 test cases 1, 2 and 6 (checked against Python `hmac`).

/// One HMAC-SHA256 known-answer case.
struct HMACVector: Sendable {
    let name: String
    let key: [UInt8]
    let message: [UInt8]
    let mac: [UInt8]
}

/// The RFC 4231 cases.
enum HMACVectors {
    static let all: [HMACVector] = [
        HMACVector(
            name: "RFC 4231 case 1",
            key: [UInt8](repeating: 0x0B, count: 20),
            message: Array("Hi There".utf8),
            mac: [UInt8](hex: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")),
        HMACVector(
            name: "RFC 4231 case 2",
            key: Array("Jefe".utf8),
            message: Array("what do ya want for nothing?".utf8),
            mac: [UInt8](hex: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")),
        HMACVector(
            name: "RFC 4231 case 6 (131-byte key)",
            key: [UInt8](repeating: 0xAA, count: 131),
            message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            mac: [UInt8](hex: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")),
        HMACVector(
            name: "empty key (Python hmac)",
            key: [],
            message: Array("message".utf8),
            mac: [UInt8](hex: "eb08c1f56d5ddee07f7bdf80468083da06b64cf4fac64fe3a90883df5feacae4")),
    ]
}

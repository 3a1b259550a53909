// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: arbitrary bytes as the keys, signatures and ciphertexts SecKey hands to SecretCrypto.
// fuzz-modules: SecretCrypto
// fuzz-libraries: gcrypt

import SecretCrypto

// The first byte picks the reader; the rest is its input. Everything here comes from callers of SecKey… functions
// (key data from files or servers, signatures and ciphertexts from peers), so each must fail cleanly.

/// A fixed P-256 recipient (RFC 5903 §8.1's responder) for the ECIES and ECDSA paths.
private let recipient = try! ECPrivateKey(x963: SecretBytes(copying: hex(
    "04D12DFB5289C8D4F81208B70270398C342296970A0BCCB74C736FC7554494BF6356FBF3CA366CC23E8157854C13C58D6AAC23F046"
    + "ADA30F8353E74F33039872ABC6EF9C5D78AE012A011164ACB397CE2088685D8F06BF9BE0B283AB46476BEE53")))

private func hex(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        bytes.append(UInt8(text[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let selector = data[0]
    let input = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    switch selector % 6 {
    case 0:
        if let secret = try? SecretBytes(copying: input), let key = try? RSAPrivateKey(pkcs1: secret) {
            _ = try? key.pkcs1()
        }
    case 1:
        if let key = try? RSAPublicKey(pkcs1: input) {
            _ = key.verify(signature: input, digest: Array(input.prefix(32)), algorithm: .sha256, padding: .pss)
        }
    case 2:
        _ = try? ECPublicKey(x963: input)
    case 3:
        if let secret = try? SecretBytes(copying: input) { _ = try? ECPrivateKey(x963: secret) }
    case 4:
        _ = try? AppleECIES.open(input, with: recipient, kdf: .sha256, variableIV: selector & 0x80 != 0)
    default:
        _ = recipient.publicKey.verify(signature: input, digest: Array(repeating: 1, count: 32), algorithm: .sha256)
    }
    return 0
}

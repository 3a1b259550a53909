// SPDX-License-Identifier: Apache-2.0
// Known-answer tests for HKDF-SHA256 (RFC 5869 Appendix A cases 1-3).

import Testing
@testable import SecretCrypto

extension HKDFVector: CustomTestStringConvertible {
    var testDescription: String { name }
}

@Suite("HKDF-SHA256")
struct HKDFTests {
    @Test("RFC 5869 output keying material", arguments: HKDFVectors.all)
    func okm(vector: HKDFVector) throws {
        let okm = try HKDF.sha256(
            inputKeyMaterial: try SecretBytes(copying: vector.ikm), salt: vector.salt, info: vector.info,
            outputByteCount: vector.length)
        #expect(okm.copyBytes() == vector.okm)
    }

    @Test("RFC 5869 pseudorandom key (extract step)", arguments: HKDFVectors.all)
    func prk(vector: HKDFVector) throws {
        let prk = try HKDF.extract(inputKeyMaterial: try SecretBytes(copying: vector.ikm), salt: vector.salt)
        #expect(prk.copyBytes() == vector.prk)
    }

    @Test("shorter outputs are prefixes; 0 bytes is allowed")
    func lengths() throws {
        let ikm = try SecretBytes(copying: HKDFVectors.all[0].ikm)
        let full = HKDFVectors.all[0].okm
        for length in [0, 1, 16, 31, 32, 33] {
            let okm = try HKDF.sha256(
                inputKeyMaterial: ikm, salt: HKDFVectors.all[0].salt, info: HKDFVectors.all[0].info,
                outputByteCount: length)
            #expect(okm.copyBytes() == Array(full.prefix(length)))
        }
    }

    @Test("output lengths beyond 255 blocks are rejected")
    func tooLong() {
        #expect(throws: CryptoError.invalidParameter) {
            try HKDF.sha256(inputKeyMaterial: try SecretBytes(count: 4), salt: [], info: [], outputByteCount: 255 * 32 + 1)
        }
        #expect(throws: CryptoError.invalidParameter) {
            try HKDF.sha256(inputKeyMaterial: try SecretBytes(count: 4), salt: [], info: [], outputByteCount: -1)
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Known-answer tests for HMAC-SHA256 (RFC 4231).

import Testing
@testable import SecretCrypto

extension HMACVector: CustomTestStringConvertible {
    var testDescription: String { name }
}

@Suite("HMAC-SHA256")
struct HMACSHA256Tests {
    @Test("RFC 4231 vectors", arguments: HMACVectors.all)
    func knownAnswer(vector: HMACVector) throws {
        let mac = try HMACSHA256.authenticationCode(for: vector.message, key: try SecretBytes(copying: vector.key))
        #expect(mac == vector.mac)
    }

    @Test("an empty message is accepted")
    func emptyMessage() throws {
        let mac = try HMACSHA256.authenticationCode(for: [], key: try SecretBytes(copying: [1, 2, 3] as [UInt8]))
        #expect(mac.count == 32)
    }
}

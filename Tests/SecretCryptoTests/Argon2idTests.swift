// SPDX-License-Identifier: Apache-2.0
// Known-answer and validation tests for Argon2id on libgcrypt's KDF API.

import Foundation
import Testing
@testable import SecretCrypto

extension Argon2Vector: CustomTestStringConvertible {
    var testDescription: String { name }
}

@Suite("Argon2id")
struct Argon2idTests {
    @Test("RFC 9106 §5.3 test vector (with secret and associated data)")
    func rfc9106() throws {
        let vector = Argon2Vectors.rfc9106
        let tag = try Argon2id.deriveKey(
            password: try SecretBytes(copying: vector.password), salt: vector.salt, secret: vector.secret,
            associatedData: vector.associatedData, parameters: vector.parameters, outputByteCount: vector.tag.count)
        #expect(tag.copyBytes() == vector.tag)
    }

    @Test("reference-implementation vectors", arguments: Argon2Vectors.plain)
    func reference(vector: Argon2Vector) throws {
        let tag = try Argon2id.deriveKey(
            password: try SecretBytes(copying: vector.password), salt: vector.salt, parameters: vector.parameters,
            outputByteCount: vector.tag.count)
        #expect(tag.copyBytes() == vector.tag)
        #expect(tag.isInSecureMemory)
    }

    @Test("invalid inputs are rejected")
    func rejections() throws {
        let password = try SecretBytes(copying: "pw".utf8)
        let salt = [UInt8](repeating: 7, count: 16)
        let cheap = Argon2idParameters(iterations: 1, memoryKiB: 64, parallelism: 1)
        #expect(throws: CryptoError.invalidParameter) {
            try Argon2id.deriveKey(password: try SecretBytes(count: 0), salt: salt, parameters: cheap, outputByteCount: 32)
        }
        #expect(throws: CryptoError.invalidParameter) {
            try Argon2id.deriveKey(password: password, salt: [1, 2, 3], parameters: cheap, outputByteCount: 32)
        }
        #expect(throws: CryptoError.invalidParameter) {
            try Argon2id.deriveKey(password: password, salt: salt, parameters: cheap, outputByteCount: 3)
        }
        for bad in [
            Argon2idParameters(iterations: 0, memoryKiB: 64, parallelism: 1),
            Argon2idParameters(iterations: 1, memoryKiB: 7, parallelism: 1),
            Argon2idParameters(iterations: 1, memoryKiB: 64, parallelism: 0),
            Argon2idParameters(iterations: 1, memoryKiB: 64, parallelism: 9),
            Argon2idParameters(iterations: 1, memoryKiB: .max, parallelism: 1),
        ] {
            #expect(throws: CryptoError.invalidParameter) {
                try Argon2id.deriveKey(password: password, salt: salt, parameters: bad, outputByteCount: 32)
            }
        }
    }

    @Test("parameters round-trip through Codable and the default is t=4, 64 MiB, p=1")
    func parameters() throws {
        let data = try JSONEncoder().encode(Argon2idParameters.default)
        #expect(try JSONDecoder().decode(Argon2idParameters.self, from: data) == .default)
        #expect(Argon2idParameters.default == Argon2idParameters(iterations: 4, memoryKiB: 65536, parallelism: 1))
    }

    @Test("the default parameters match the reference implementation")
    func defaultCost() throws {
        let vector = Argon2Vectors.defaultParameters
        let tag = try Argon2id.deriveKey(
            password: try SecretBytes(copying: vector.password), salt: vector.salt, parameters: .default,
            outputByteCount: 32)
        #expect(tag.copyBytes() == vector.tag)
    }
}

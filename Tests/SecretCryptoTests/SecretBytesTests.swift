// SPDX-License-Identifier: Apache-2.0
// Tests for the secure-memory byte buffer.

import Testing
@testable import SecretCrypto

@Suite("SecretBytes")
struct SecretBytesTests {
    @Test("a new buffer is zero-filled")
    func zeroFilled() throws {
        let bytes = try SecretBytes(count: 48)
        #expect(bytes.count == 48)
        #expect(!bytes.isEmpty)
        #expect(bytes.copyBytes() == [UInt8](repeating: 0, count: 48))
    }

    @Test("an empty buffer has no bytes")
    func empty() throws {
        let bytes = try SecretBytes(count: 0)
        #expect(bytes.isEmpty)
        #expect(bytes.copyBytes() == [])
        #expect(try SecretBytes(copying: [UInt8]()).isEmpty)
    }

    @Test("copying init copies arrays, slices and non-contiguous collections")
    func copying() throws {
        let source: [UInt8] = [1, 2, 3, 4, 5]
        #expect(try SecretBytes(copying: source).copyBytes() == source)
        #expect(try SecretBytes(copying: source[1..<3]).copyBytes() == [2, 3])
        #expect(try SecretBytes(copying: "pässword".utf8).copyBytes() == Array("pässword".utf8))
        #expect(try SecretBytes(copying: source.reversed()).copyBytes() == [5, 4, 3, 2, 1])
    }

    @Test("mutation through withUnsafeMutableBytes is visible")
    func mutation() throws {
        let bytes = try SecretBytes(count: 4)
        bytes.withUnsafeMutableBytes { $0[2] = 0xAB }
        #expect(bytes.withUnsafeBytes { $0[2] } == 0xAB)
        #expect(bytes.copyBytes() == [0, 0, 0xAB, 0])
    }

    @Test("wipe zeroes every byte at once; a ranged wipe only its range")
    func wipe() throws {
        let bytes = try SecretBytes(copying: Array(1...8) as [UInt8])
        bytes.wipe(2..<5)
        #expect(bytes.copyBytes() == [1, 2, 0, 0, 0, 6, 7, 8])
        bytes.wipe(8..<8)
        #expect(bytes.copyBytes() == [1, 2, 0, 0, 0, 6, 7, 8])
        bytes.wipe()
        #expect(bytes.copyBytes() == [UInt8](repeating: 0, count: 8))
        let empty = try SecretBytes(count: 0)
        empty.wipe()
        #expect(empty.isEmpty)
    }

    @Test("description and debugDescription are redacted")
    func redacted() throws {
        let bytes = try SecretBytes(copying: Array("hunter2".utf8))
        #expect(bytes.description == "<redacted>")
        #expect(bytes.debugDescription == "<redacted>")
        #expect("\(bytes)" == "<redacted>")
        #expect(String(reflecting: bytes) == "<redacted>")
        #expect(!"\([bytes])".contains("hunter2"))
    }

    @Test("constantTimeEquals compares length and content")
    func constantTimeEquals() throws {
        let a = try SecretBytes(copying: [1, 2, 3] as [UInt8])
        #expect(a.constantTimeEquals(try SecretBytes(copying: [1, 2, 3] as [UInt8])))
        #expect(!a.constantTimeEquals(try SecretBytes(copying: [1, 2, 4] as [UInt8])))
        #expect(!a.constantTimeEquals(try SecretBytes(copying: [1, 2] as [UInt8])))
        #expect(try SecretBytes(count: 0).constantTimeEquals(try SecretBytes(count: 0)))
    }

    @Test("buffers larger than the secure pool get locked pages of their own")
    func largerThanPool() throws {
        let size = 3 << 20
        let big = try SecretBytes(count: size)
        big.withUnsafeMutableBytes { $0[size - 1] = 7 }
        #expect(big.count == size)
        #expect(big.withUnsafeBytes { $0[size - 1] } == 7)
        #expect(big.isInSecureMemory)
    }
}

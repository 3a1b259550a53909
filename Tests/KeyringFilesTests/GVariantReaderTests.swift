// SPDX-License-Identifier: Apache-2.0
// The GVariant reader on GLib's serializations of small values, and on hostile framing offsets.

@testable import KeyringFiles
import Testing

private func decode(_ type: GVariantType, _ bytes: [UInt8]) throws -> GVariantValue {
    try bytes.withUnsafeBytes { try GVariantReader(bytes: $0).decode(type, 0..<$0.count) }
}

@Suite("GVariant reader")
struct GVariantReaderTests {
    @Test("GLib's serializations decode to their values")
    func knownSerializations() throws {
        // (us) = (1, "a"): the last member needs no framing offset.
        #expect(try decode(.tuple([.uint32, .string]), [1, 0, 0, 0, 0x61, 0]) == .tuple([.uint32(1), .string("a")]))
        // as = ["a", "bc"]: elements, then one end offset each.
        #expect(try decode(.array(.string), [0x61, 0, 0x62, 0x63, 0, 2, 5]) == .array([.string("a"), .string("bc")]))
        // a{ss} = {"k": "v"}: the entry frames its key, the array frames the entry.
        #expect(try decode(.array(.dictEntry(.string, .string)), [0x6B, 0, 0x76, 0, 2, 5])
                == .array([.tuple([.string("k"), .string("v")])]))
        // (st) = ("a", 2): the uint64 is aligned to 8 and the string is framed at the end.
        #expect(try decode(.tuple([.string, .uint64]), [0x61, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 2])
                == .tuple([.string("a"), .uint64(2)]))
        #expect(try decode(.array(.byte), [1, 2, 3]) == .bytes(0..<3))
        #expect(try decode(.array(.string), []) == .array([]))
    }

    @Test("hostile framing and malformed leaves are errors, never out-of-bounds reads")
    func hostile() {
        let cases: [(GVariantType, [UInt8])] = [
            (.array(.string), [0x61, 0, 0xFF]),  // the table starts past the end
            (.array(.string), [0x61, 0, 9, 2]),  // an element ends after the table starts
            (.array(.string), [0x61, 0, 3, 1]),  // an element ends before it starts
            (.array(.string), [0x61, 0x62, 2]),  // not NUL-terminated
            (.array(.string), [0xFF, 0, 2]),  // not UTF-8
            (.array(.string), [0x61, 0, 0x62, 0, 4, 2]),  // ends go backwards
            (.tuple([.string, .uint64]), [0x61, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 200]),
            (.tuple([.uint32, .string]), [1, 0, 0]),  // too short for the uint32
            (.uint64, [1, 2, 3]),
            (.array(.uint32), [1, 2, 3, 4, 5]),
            (.array(.tuple([.array(.dictEntry(.string, .array(.byte))), .array(.byte)])), [0, 0, 0, 0, 0xFE]),
        ]
        for (type, bytes) in cases {
            let error = thrownError { try decode(type, bytes) }
            #expect(error is KeyringFileError, "\(bytes): \(String(describing: error))")
        }
    }
}

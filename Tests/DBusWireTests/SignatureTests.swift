// SPDX-License-Identifier: Apache-2.0
// Signature parsing and printing, including the specification's limits.

import DBusWire
import Testing

@Suite("Signatures")
struct SignatureTests {
    @Test("valid signatures parse into complete types and print back unchanged",
          arguments: ["", "s", "ay", "a{sv}", "(oayays)", "a{o(oayays)}", "aa{sa(iv)}", "ybnqiuxtdsoghv", "a(yy)"])
    func roundTrip(_ text: String) throws {
        let signature = try #require(Signature(text))
        #expect(signature.rawValue == text)
        #expect(Signature(signature.types).rawValue == text)
    }

    @Test("complete types are split correctly")
    func completeTypes() throws {
        let signature = try #require(Signature("sa{sv}(oayays)b" as String))
        #expect(signature.types == [
            .string, .dictionary(key: .string, value: .variant),
            .structure([.objectPath, .array(.byte), .array(.byte), .string]), .boolean,
        ])
    }

    @Test("malformed signatures are rejected",
          arguments: ["a", "(", ")", "()", "a{vs}", "{ss}", "a{s}", "a{sss}", "z", "(s", "a{(s)s}", "aaaa{"])
    func rejects(_ text: String) {
        #expect(Signature(text) == nil)
    }

    @Test("nesting deeper than 32 arrays or structs is rejected")
    func depthLimits() {
        #expect(Signature(String(repeating: "a", count: 32) + "y") != nil)
        #expect(Signature(String(repeating: "a", count: 33) + "y") == nil)
        #expect(Signature(String(repeating: "(", count: 32) + "y" + String(repeating: ")", count: 32)) != nil)
        #expect(Signature(String(repeating: "(", count: 33) + "y" + String(repeating: ")", count: 33)) == nil)
    }

    @Test("signatures longer than 255 bytes are rejected")
    func lengthLimit() {
        #expect(Signature(String(repeating: "y", count: 255)) != nil)
        #expect(Signature(String(repeating: "y", count: 256)) == nil)
    }
}

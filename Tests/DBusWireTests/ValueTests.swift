// SPDX-License-Identifier: Apache-2.0
// DBusValue typing, well-formedness and typed access.

import DBusWire
import Testing

@Suite("Values")
struct ValueTests {
    @Test("each value reports its complete type")
    func types() {
        #expect(DBusValue.bytes([1, 2]).type == .array(.byte))
        #expect(DBusValue.array(.string, []).type == .array(.string))
        #expect(DBusValue.stringDictionary(["a": "b"]).type == .dictionary(key: .string, value: .string))
        #expect(DBusValue.structure([.objectPath("/"), .bytes([]), .bytes([]), .string("")]).type.description
            == "(oayays)")
        #expect(DBusValue.variant(.uint64(1)).type == .variant)
    }

    @Test("hasType agrees with comparing the value's type, for every value against every type")
    func hasTypeAgrees() {
        let values: [DBusValue] = [
            .byte(1), .boolean(true), .int16(1), .uint16(1), .int32(1), .uint32(1), .int64(1), .uint64(1),
            .double(1), .string("s"), .objectPath("/"), .signature(Signature("s")), .unixFD(.init(rawValue: 0)),
            .bytes([1]), .array(.byte, [.byte(1)]), .array(.string, []), .array(.array(.string), []),
            .stringDictionary(["a": "b"]), .dictionary(key: .string, value: .variant, []),
            .structure([.string("a"), .uint64(1)]), .structure([.string("a")]), .structure([.bytes([])]),
            .variant(.string("v")),
        ]
        let types = values.map(\.type) + [.structure([.string, .uint32]), .array(.variant),
                                          .dictionary(key: .uint32, value: .string)]
        for value in values {
            for type in types { #expect(value.hasType(type) == (value.type == type), "\(value) against \(type)") }
        }
    }

    @Test("a variant's type is plainly valid when it is basic, a variant, or one array or dictionary of those")
    func plainlyValidTypes() {
        #expect(DBusType.string.isPlainlyValid && DBusType.variant.isPlainlyValid)
        #expect(DBusType.array(.objectPath).isPlainlyValid)
        #expect(DBusType.dictionary(key: .string, value: .variant).isPlainlyValid)
        #expect(!DBusType.dictionary(key: .variant, value: .string).isPlainlyValid)
        #expect(!DBusType.array(.array(.string)).isPlainlyValid)
        #expect(!DBusType.structure([.string]).isPlainlyValid)
    }

    @Test("containers whose elements disagree with their declared type are not well formed")
    func wellFormedness() {
        #expect(DBusValue.array(.string, [.string("a"), .string("b")]).isWellFormed)
        #expect(!DBusValue.array(.string, [.string("a"), .int32(1)]).isWellFormed)
        #expect(!DBusValue.dictionary(key: .variant, value: .string, []).isWellFormed)
        #expect(!DBusValue.structure([]).isWellFormed)
        #expect(!DBusValue.string("a\u{0}b").isWellFormed)
        #expect(DBusValue.variant(.variant(.array(.int32, [.int32(1)]))).isWellFormed)
        #expect(!DBusValue.variant(.array(.int32, [.string("x")])).isWellFormed)
    }

    @Test("typed accessors read dictionaries and byte arrays in either representation")
    func accessors() {
        let attributes = DBusValue.stringDictionary(["service": "s", "account": "a"])
        #expect(attributes.stringDictionary == ["service": "s", "account": "a"])
        #expect(DBusValue.variantDictionary(["Label": .string("x")]).variantDictionary == ["Label": .string("x")])
        #expect(DBusValue.array(.byte, [.byte(1), .byte(2)]).bytes == [1, 2])
        #expect(DBusValue.string("x").bytes == nil)
        #expect(attributes.variantDictionary == nil)
    }

    @Test("replies and errors answer the call they belong to")
    func replies() {
        var call = Message.methodCall(destination: "org.freedesktop.secrets", path: "/org/freedesktop/secrets",
                                      interface: "org.freedesktop.Secret.Service", member: "ReadAlias",
                                      body: [.string("default")])
        call.serial = 7
        call.sender = ":1.5"
        let reply = call.makeReply([.objectPath("/")])
        #expect(reply.kind == .methodReturn && reply.replySerial == 7 && reply.destination == ":1.5")
        let error = call.makeErrorReply(DBusError(.invalidArgs, "bad"))
        #expect(error.error == DBusError(.invalidArgs, "bad"))
        #expect(call.signature == "s")
    }
}

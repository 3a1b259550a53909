// SPDX-License-Identifier: Apache-2.0
// DBusValue -> libdbus message -> wire bytes -> libdbus message -> DBusValue round trips, without a bus.

@testable import DBusTransport
import DBusWire
import Glibc
import Testing

@Suite("Marshalling")
struct MarshallingTests {
    /// Encodes `body` in a method call, marshals it to wire bytes, parses those back (with libdbus's full
    /// validation) and decodes the result.
    static func roundTrip(_ body: [DBusValue]) throws -> [DBusValue] {
        let message = Message.methodCall(destination: "org.example.Peer", path: "/org/example", interface: nil,
                                         member: "Test", body: body)
        return try roundTrip(message).body
    }

    static func roundTrip(_ message: Message) throws -> Message {
        let encoded = try MessageEncoder.encode(message, keepSerial: true)
        let bytes = try encoded.marshalled()
        return try #require(MessageDecoder.decode(try LibDBusMessage(demarshalling: bytes)))
    }

    @Test("basic types keep their edge values", arguments: [
        DBusValue.byte(0), .byte(.max), .boolean(true), .boolean(false),
        .int16(.min), .int16(.max), .uint16(.max), .int32(.min), .int32(.max), .uint32(.max),
        .int64(.min), .int64(.max), .uint64(.max), .uint64(0),
        .double(0), .double(-0.0), .double(.pi), .double(.infinity), .double(-.infinity),
        .double(.leastNonzeroMagnitude), .double(.greatestFiniteMagnitude),
        .string(""), .string("plain"), .string("grüße, 秘密, 🔐"),
        .objectPath("/"), .objectPath("/org/freedesktop/secrets/collection/login"),
        .signature(""), .signature("a{sv}"), .signature("(oayays)"),
    ])
    func basic(_ value: DBusValue) throws {
        #expect(try Self.roundTrip([value]) == [value])
    }

    @Test func longString() throws {
        let value = DBusValue.string(String(repeating: "long ", count: 20_000))
        #expect(try Self.roundTrip([value]) == [value])
    }

    @Test func severalArgumentsKeepTheirOrder() throws {
        let body: [DBusValue] = [.string("a"), .uint32(7), .objectPath("/x"), .boolean(true), .int64(-1)]
        #expect(try Self.roundTrip(body) == body)
    }

    @Test func emptyBody() throws {
        #expect(try Self.roundTrip([]) == [])
    }

    @Test func nestedVariants() throws {
        let value = DBusValue.variant(.variant(.variant(.structure([.string("deep"), .variant(.uint64(.max))]))))
        #expect(try Self.roundTrip([value]) == [value])
    }

    @Test func dictionaryOfStructures() throws {
        let secret = DBusValue.structure([.objectPath("/s/1"), .bytes([]), .bytes([1, 2, 3]), .string("text/plain")])
        let value = DBusValue.dictionary(key: .objectPath, value: .structure([.objectPath, .array(.byte),
                                                                             .array(.byte), .string]),
                                         [DictEntry(.objectPath("/item/1"), secret),
                                          DictEntry(.objectPath("/item/2"), secret)])
        #expect(try Self.roundTrip([value]) == [value])
    }

    @Test func variantDictionaryAndArrayOfDictionaries() throws {
        let properties = DBusValue.variantDictionary([
            "Label": .string("Login"), "Locked": .boolean(false), "Created": .uint64(1_700_000_000),
            "Attributes": .stringDictionary(["user": "me", "service": "mail"]),
        ])
        let list = DBusValue.array(.dictionary(key: .string, value: .variant), [properties, properties])
        #expect(list.isWellFormed)
        #expect(try Self.roundTrip([properties, list]) == [properties, list])
    }

    @Test("empty arrays keep their element type", arguments: [
        DBusType.structure([.string, .variant]), .dictionary(key: .string, value: .variant),
        .dictionary(key: .uint32, value: .structure([.objectPath, .array(.string)])), .variant, .string,
        .array(.array(.int32)), .unixFD, .boolean, .int64,
    ])
    func emptyArray(of element: DBusType) throws {
        let value: DBusValue
        if case .dictionary(let key, let valueType) = element {
            value = .dictionary(key: key, value: valueType, [])
        } else {
            value = .array(element, [])
        }
        #expect(try Self.roundTrip([value]) == [value])
    }

    @Test func emptyByteArrayDecodesAsBytes() throws {
        #expect(try Self.roundTrip([.bytes([])]) == [.bytes([])])
        #expect(try Self.roundTrip([.array(.byte, [])]) == [.bytes([])])
    }

    @Test func byteArrayOfElementsDecodesAsBytes() throws {
        #expect(try Self.roundTrip([.array(.byte, [.byte(1), .byte(255)])]) == [.bytes([1, 255])])
    }

    @Test func oneMebibyteByteArray() throws {
        let bytes = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        #expect(try Self.roundTrip([.bytes(bytes)]) == [.bytes(bytes)])
    }

    @Test func fixedSizeArrays() throws {
        let body: [DBusValue] = [
            .array(.int16, [.int16(.min), .int16(1)]), .array(.uint16, [.uint16(.max)]),
            .array(.int32, (0..<1000).map { .int32(Int32($0) - 500) }), .array(.uint32, [.uint32(.max), .uint32(0)]),
            .array(.int64, [.int64(.min), .int64(.max)]), .array(.uint64, [.uint64(.max)]),
            .array(.double, [.double(1.5), .double(-.infinity)]), .array(.boolean, [.boolean(true), .boolean(false)]),
        ]
        #expect(try Self.roundTrip(body) == body)
    }

    @Test func nestedArraysAndStructures() throws {
        let value = DBusValue.array(.array(.structure([.string, .array(.variant)])), [
            .array(.structure([.string, .array(.variant)]), [
                .structure([.string("a"), .array(.variant, [.variant(.bytes([9])), .variant(.string("v"))])]),
            ]),
            .array(.structure([.string, .array(.variant)]), []),
        ])
        #expect(try Self.roundTrip([value]) == [value])
    }

    /// libdbus (and the specification) count only `(` against the struct limit, not dict entries `{`.
    @Test func dictionaryEntriesDoNotCountAsStructNesting() throws {
        var type = DBusType.int32
        var value = DBusValue.int32(42)
        for _ in 0..<20 {
            let structure = DBusType.structure([type])
            value = .dictionary(key: .string, value: structure, [DictEntry(.string("k"), .structure([value]))])
            type = .dictionary(key: .string, value: structure)
        }
        let signature = Signature([type])
        #expect(Signature(signature.rawValue) == signature)
        let body: [DBusValue] = [value, .signature(signature)]
        #expect(try Self.roundTrip(body) == body)
    }

    @Test("header fields survive", arguments: [
        Message(kind: .methodCall, serial: 7, path: "/org/example/Obj", interface: "org.example.Iface",
                member: "DoIt", destination: "org.example.Service", sender: ":1.9", body: [.string("x")],
                noReplyExpected: true, noAutoStart: true),
        Message(kind: .methodCall, serial: 8, path: "/", member: "NoInterface"),
        Message(kind: .methodReturn, serial: 9, replySerial: 7, destination: ":1.9", sender: ":1.10"),
        Message(kind: .error, serial: 10, replySerial: 7, errorName: "org.example.Error.Nope",
                destination: ":1.9", body: [.string("no")]),
        Message(kind: .signal, serial: UInt32.max, path: "/org/example", interface: "org.example.Signals",
                member: "Changed", sender: "org.example.Service", body: [.uint32(1)]),
    ])
    func header(_ message: Message) throws {
        #expect(try Self.roundTrip(message) == message)
    }

    @Test func unixFileDescriptorComesBackAsANewDescriptorForTheSameFile() throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let message = Message.methodCall(destination: nil, path: "/o", interface: nil, member: "Fd",
                                         body: [.unixFD(UnixFileDescriptor(rawValue: ends[0]))])
        // A message carrying descriptors cannot be marshalled to bytes; decode the libdbus message directly.
        let encoded = try MessageEncoder.encode(message)
        let decoded = try #require(MessageDecoder.decode(encoded))
        guard case .unixFD(let received)? = decoded.body.first else {
            Issue.record("expected a unix fd, got \(decoded.body)")
            return
        }
        defer { close(received.rawValue) }
        #expect(received.rawValue != ends[0])
        var original = stat(), copy = stat()
        #expect(fstat(ends[0], &original) == 0 && fstat(received.rawValue, &copy) == 0)
        #expect(original.st_ino == copy.st_ino && original.st_dev == copy.st_dev)
    }
}

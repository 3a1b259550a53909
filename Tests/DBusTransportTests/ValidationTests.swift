// SPDX-License-Identifier: Apache-2.0
// Messages libdbus would abort on are refused with TransportError.invalidMessage instead.

@testable import DBusTransport
import DBusWire
import Testing

@Suite("Validation")
struct ValidationTests {
    static func call(_ body: [DBusValue]) -> Message {
        .methodCall(destination: nil, path: "/o", interface: nil, member: "M", body: body)
    }

    static func deepVariant(_ depth: Int) -> DBusValue {
        (0..<depth).reduce(DBusValue.int32(0)) { inner, _ in .variant(inner) }
    }

    @Test("malformed bodies are refused", arguments: [
        [DBusValue.string("nul\u{0}inside")],
        [.objectPath(ObjectPath(unchecked: "no/leading/slash"))],
        [.objectPath(ObjectPath(unchecked: "/trailing/"))],
        [.array(.string, [.string("ok"), .int32(1)])],
        [.dictionary(key: .variant, value: .string, [])],
        [.dictionary(key: .string, value: .string, [DictEntry(.string("k"), .int32(1))])],
        [.structure([])],
        [.unixFD(UnixFileDescriptor(rawValue: -1))],
        [.array(.structure([.string]), [.structure([.string("nul\u{0}")])])],
    ])
    func body(_ body: [DBusValue]) {
        #expect(throws: TransportError.invalidMessage) { try MessageEncoder.encode(Self.call(body)) }
    }

    @Test func signatureOverTheLengthLimit() {
        let body: [DBusValue] = [.structure(Array(repeating: .int32(1), count: 300))]
        #expect(throws: TransportError.invalidMessage) { try MessageEncoder.encode(Self.call(body)) }
    }

    @Test func nestingBeyondTheDepthLimit() {
        #expect(throws: TransportError.invalidMessage) { try MessageEncoder.encode(Self.call([Self.deepVariant(65)])) }
        let deepArray = (0..<65).reduce(DBusValue.int32(0)) { inner, _ in .array(inner.type, [inner]) }
        #expect(throws: TransportError.invalidMessage) { try MessageEncoder.encode(Self.call([deepArray])) }
    }

    @Test("more descriptors than one message can carry are refused before the connection is put at risk")
    func descriptorCount() throws {
        let descriptors = { (count: Int) in
            DBusValue.array(.unixFD, Array(repeating: .unixFD(UnixFileDescriptor(rawValue: 0)), count: count))
        }
        #expect(try MessageValidator.validate(body: [descriptors(253)]).unixFDCount == 253)
        #expect(throws: TransportError.invalidMessage) { try MessageValidator.validate(body: [descriptors(254)]) }
    }

    @Test func deepestAcceptedNesting() throws {
        _ = try MessageEncoder.encode(Self.call([Self.deepVariant(64)]))
    }

    @Test("malformed headers are refused", arguments: [
        Message(kind: .methodCall, path: "/o"),
        Message(kind: .methodCall, member: "M"),
        Message(kind: .signal, path: "/o", member: "M"),
        Message(kind: .methodReturn),
        Message(kind: .error, replySerial: 1),
        Message(kind: .methodReturn, replySerial: 0),
        Message(kind: .signal, path: "/o", interface: "org.freedesktop.DBus.Local", member: "Disconnected"),
        Message(kind: .methodCall, path: "/o", interface: "org.freedesktop.DBus.Local.Not", member: "M"),
        Message(kind: .methodCall, path: "/org/freedesktop/DBus/LocalX", member: "M"),
        Message(kind: .methodCall, path: ObjectPath(unchecked: "//"), member: "M"),
        Message(kind: .methodCall, path: "/o", interface: InterfaceName(unchecked: "nodots"), member: "M"),
        Message(kind: .methodCall, path: "/o", member: MemberName(unchecked: "with.dot")),
        Message(kind: .methodCall, path: "/o", member: "M", destination: BusName(unchecked: "bad name")),
        Message(kind: .error, replySerial: 1, errorName: ErrorName(unchecked: "x")),
    ])
    func header(_ message: Message) {
        #expect(throws: TransportError.invalidMessage) { try MessageEncoder.encode(message) }
    }
}

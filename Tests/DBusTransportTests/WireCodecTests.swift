// SPDX-License-Identifier: Apache-2.0
// The wire writer and reader against libdbus's own iterators: same bytes out, same values in, for random bodies.

@testable import DBusTransport
import DBusWire
import SecretServiceTestSupport
import Testing

@Suite("Wire codec")
struct WireCodecTests {
    /// A method call carrying `body`, with a serial so both paths can marshal it as it is.
    static func call(_ body: [DBusValue]) -> Message {
        var message = Message.methodCall(destination: "org.example.Peer", path: "/org/example",
                                         interface: "org.example.Iface", member: "Test", body: body)
        message.serial = 9
        return message
    }

    /// The body bytes of a whole message in wire format (after the header and its padding).
    static func bodyBytes(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        let fieldsLength = Int(bytes[12]) | Int(bytes[13]) << 8 | Int(bytes[14]) << 16 | Int(bytes[15]) << 24
        return bytes[(16 + fieldsLength + 7) / 8 * 8 ..< bytes.count]
    }

    /// What is wrong with random message `index` written both ways and read back both ways, or `nil`.
    static func randomMismatch(_ index: Int) -> String? {
        let seed = UInt64(0xC0FF_EE00 + index)
        var random = SplitMix64(seed: seed)
        let body = (0..<(1 + Int(random.next() % 3))).map { _ in RandomValues.value(depth: 0, using: &random) }
        let message = call(body)
        do {
            let iterated = try MessageEncoder.encodeThroughIterators(message, keepSerial: true).marshalled()
            let written = try message.wireBytes(serial: message.serial)
            guard bodyBytes(written) == bodyBytes(iterated) else { return "seed \(seed): the bodies differ" }
            // Each path's bytes, checked by libdbus, read back by the reader as the message that was sent.
            for bytes in [iterated, written] {
                let parsed = try LibDBusMessage(demarshalling: bytes)
                guard MessageDecoder.decode(parsed) == message else { return "seed \(seed): the reader differs" }
                guard MessageDecoder.bodyThroughIterators(of: parsed.pointer) == body else {
                    return "seed \(seed): the iterators differ"
                }
            }
        } catch {
            return "seed \(seed): \(error)"
        }
        return nil
    }

    // Seconds of synchronous work under a sanitizer: run on a Dispatch thread (`unexpectedOutcomes`), not the
    // cooperative pool that the suites' D-Bus clients need.
    @Test("the writer gives the bytes libdbus's iterators give, and the reader reads what they wrote")
    func randomBodies() async {
        let mismatches = await unexpectedOutcomes(400) { Self.randomMismatch($0) }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test("a message written big-endian by another implementation is read with every value in place")
    func bigEndian() throws {
        var big = BigEndianMessage()
        big.bytes = [UInt8(ascii: "B"), 2, 1, 1]  // method return, no reply expected, version 1
        big.u32(0)  // body length, patched below
        big.u32(77)  // serial
        big.u32(0)  // header fields length, patched below
        let fieldsStart = big.bytes.count
        big.field(5, "u") { $0.u32(7) }  // reply serial
        big.field(6, "s") { $0.text(":1.5") }  // destination
        big.field(8, "g") { $0.signature("sa{sv}tn") }
        big.patch(UInt32(big.bytes.count - fieldsStart), at: 12)
        big.align(8)
        let bodyStart = big.bytes.count
        big.text("grüße")
        big.align(4)
        let lengthAt = big.bytes.count
        big.u32(0)  // array length, patched below
        big.align(8)
        let entriesStart = big.bytes.count
        big.align(8); big.text("Label"); big.signature("s"); big.text("x")
        big.align(8); big.text("Created"); big.signature("t"); big.u64(0x0102_0304_0506_0708)
        big.patch(UInt32(big.bytes.count - entriesStart), at: lengthAt)
        big.u64(UInt64.max - 1)
        big.align(2); big.bytes += [0xFF, 0xFE]  // int16 -2
        big.patch(UInt32(big.bytes.count - bodyStart), at: 4)

        let decoded = try #require(MessageDecoder.decode(try LibDBusMessage(demarshalling: big.bytes)))
        #expect(decoded.kind == .methodReturn && decoded.serial == 77 && decoded.replySerial == 7)
        #expect(decoded.destination == ":1.5" && decoded.noReplyExpected)
        #expect(decoded.body == [
            .string("grüße"),
            .dictionary(key: .string, value: .variant, [
                DictEntry(.string("Label"), .variant(.string("x"))),
                DictEntry(.string("Created"), .variant(.uint64(0x0102_0304_0506_0708))),
            ]),
            .uint64(.max - 1), .int16(-2),
        ])
    }

    @Test("bytes that stop short or have a length run past the end are refused, never read out of bounds")
    func truncatedAndCorrupted() async throws {
        let body: [DBusValue] = [
            .string("name"), .dictionary(key: .string, value: .variant, [DictEntry(.string("k"), .variant(.bytes([1, 2])))]),
            .array(.structure([.objectPath, .uint64]), [.structure([.objectPath("/a"), .uint64(1)])]),
        ]
        let bytes = try Self.call(body).wireBytes(serial: 1)
        #expect(bytes.withUnsafeBytes { Message.parse(wireBytes: $0) }?.message.body == body)
        let cuts = await unexpectedOutcomes(bytes.count) { end in
            bytes[..<end].withUnsafeBytes { Message.parse(wireBytes: $0) } == nil ? nil : "cut at \(end) was read"
        }
        #expect(cuts.isEmpty, "\(cuts.prefix(5))")
        // Damaged bytes may or may not be refused; what matters is that reading them returns.
        _ = await unexpectedOutcomes(1_000) { index in
            var random = SplitMix64(seed: UInt64(index))
            var damaged = bytes
            damaged[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
            _ = damaged.withUnsafeBytes { Message.parse(wireBytes: $0) }
            return nil
        }
    }

    @Test("a value of the wrong type for its container is refused with the validator's reason")
    func typeMismatch() {
        let message = Self.call([.array(.string, [.string("a"), .uint32(1)])])
        #expect(throws: WireWriter.Failure.typeMismatch) { try message.wireBytes(serial: 1) }
        do {
            _ = try MessageEncoder.encode(message)
            Issue.record("a mistyped array was encoded")
        } catch {
            #expect(error == .invalidMessage)
            #expect(error.detail?.contains("array element of type") == true)
        }
    }

    @Test("what only libdbus's check finds is refused with the validator's reason")
    func nulInsideAString() {
        do {
            _ = try MessageEncoder.encode(Self.call([.string("a\0b")]))
            Issue.record("a string with NUL was encoded")
        } catch {
            #expect(error == .invalidMessage)
            #expect(error.detail == "a string contains NUL")
        }
    }

    @Test("an encoded message has no serial until a connection sends it")
    func serialLeftToTheConnection() throws {
        var message = Self.call([.string("x")])
        message.serial = 0
        #expect(try MessageEncoder.encode(message).serial == 0)
        message.serial = 5
        #expect(try MessageEncoder.encode(message).serial == 0)
        #expect(try MessageEncoder.encode(message, keepSerial: true).serial == 5)
    }
}

/// Random well-typed values of every type but `h`, which cannot travel as bytes alone.
enum RandomValues {
    static let basic: [DBusType] = [
        .byte, .boolean, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double, .string, .objectPath, .signature,
    ]

    static func type(depth: Int, using random: inout SplitMix64) -> DBusType {
        guard depth < 4, random.next() % 10 < 4 else { return pick(basic + [.variant], &random) }
        switch random.next() % 3 {
        case 0: return .array(type(depth: depth + 1, using: &random))
        case 1: return .dictionary(key: pick(basic, &random), value: type(depth: depth + 1, using: &random))
        default: return .structure((0..<(1 + Int(random.next() % 3))).map { _ in type(depth: depth + 1, using: &random) })
        }
    }

    static func value(depth: Int, using random: inout SplitMix64) -> DBusValue {
        value(of: type(depth: depth, using: &random), depth: depth, using: &random)
    }

    static func value(of type: DBusType, depth: Int, using random: inout SplitMix64) -> DBusValue {
        let bits = random.next()
        switch type {
        case .byte: return .byte(UInt8(truncatingIfNeeded: bits))
        case .boolean: return .boolean(bits & 1 == 1)
        case .int16: return .int16(Int16(truncatingIfNeeded: bits))
        case .uint16: return .uint16(UInt16(truncatingIfNeeded: bits))
        case .int32: return .int32(Int32(truncatingIfNeeded: bits))
        case .uint32: return .uint32(UInt32(truncatingIfNeeded: bits))
        case .int64: return .int64(Int64(bitPattern: bits))
        case .uint64: return .uint64(bits)
        case .double: return .double(pick([0, -1.5, .infinity, 1e300, .leastNonzeroMagnitude], &random))
        case .string: return .string(pick(["", "s", "grüße", "秘密 🔐", String(repeating: "x", count: 40)], &random))
        case .objectPath: return .objectPath(pick(["/", "/a", "/org/freedesktop/secrets/collection/login/7"], &random))
        case .signature: return .signature(pick(["", "s", "a{sv}", "(oayays)"], &random))
        case .unixFD: return .uint32(0)  // never drawn
        case .variant: return .variant(value(depth: depth + 1, using: &random))
        case .array(.byte): return .bytes((0..<Int(bits % 20)).map { UInt8(truncatingIfNeeded: $0) })
        case .array(let element):
            return .array(element, (0..<Int(bits % 4)).map { _ in value(of: element, depth: depth + 1, using: &random) })
        case .dictionary(let key, let valueType):
            return .dictionary(key: key, value: valueType, (0..<Int(bits % 4)).map { _ in
                DictEntry(value(of: key, depth: depth + 1, using: &random),
                          value(of: valueType, depth: depth + 1, using: &random))
            })
        case .structure(let fields):
            return .structure(fields.map { value(of: $0, depth: depth + 1, using: &random) })
        }
    }

    static func pick<T>(_ choices: [T], _ random: inout SplitMix64) -> T {
        choices[Int(random.next() % UInt64(choices.count))]
    }
}

/// A hand-rolled big-endian writer for one fixture: what a peer on a big-endian machine sends.
struct BigEndianMessage {
    var bytes: [UInt8] = []

    mutating func align(_ boundary: Int) {
        while bytes.count % boundary != 0 { bytes.append(0) }
    }

    mutating func u32(_ value: UInt32) {
        align(4)
        withUnsafeBytes(of: value.bigEndian) { bytes += $0 }
    }

    mutating func u64(_ value: UInt64) {
        align(8)
        withUnsafeBytes(of: value.bigEndian) { bytes += $0 }
    }

    mutating func text(_ value: String) {
        u32(UInt32(value.utf8.count))
        bytes += value.utf8
        bytes.append(0)
    }

    mutating func signature(_ value: String) {
        bytes.append(UInt8(value.utf8.count))
        bytes += value.utf8
        bytes.append(0)
    }

    mutating func field(_ code: UInt8, _ type: String, _ value: (inout BigEndianMessage) -> Void) {
        align(8)
        bytes.append(code)
        signature(type)
        value(&self)
    }

    mutating func patch(_ value: UInt32, at offset: Int) {
        withUnsafeBytes(of: value.bigEndian) { raw in for index in 0..<4 { bytes[offset + index] = raw[index] } }
    }
}

extension WireCodecTests {
    @Test("an h value that arrives without descriptors reads as -1, never as the index it holds")
    func descriptorIndexWithoutDescriptors() throws {
        var writer = BigEndianMessage()
        writer.bytes = [UInt8(ascii: "B"), 2, 0, 1]
        writer.u32(4)
        writer.u32(3)
        writer.u32(0)
        let fieldsStart = writer.bytes.count
        writer.field(5, "u") { $0.u32(1) }
        writer.field(8, "g") { $0.signature("h") }
        writer.patch(UInt32(writer.bytes.count - fieldsStart), at: 12)
        writer.align(8)
        writer.u32(2)  // index 2: descriptor 2 is this process's standard error
        // libdbus takes such a message; its iterators read the index as -1, and so must the reader.
        let parsed = try LibDBusMessage(demarshalling: writer.bytes)
        #expect(MessageDecoder.bodyThroughIterators(of: parsed.pointer) == [.unixFD(UnixFileDescriptor(rawValue: -1))])
        #expect(MessageDecoder.decode(parsed)?.body == [.unixFD(UnixFileDescriptor(rawValue: -1))])
        #expect(writer.bytes.withUnsafeBytes { Message.parse(wireBytes: $0) }?.message.body
                == [.unixFD(UnixFileDescriptor(rawValue: -1))])
    }
}

// SPDX-License-Identifier: Apache-2.0
// A whole message (fixed header, header fields, body) in wire format and back.

/// The header field codes of the D-Bus specification.
private enum HeaderField: UInt8 {
    case path = 1, interface, member, errorName, replySerial, destination, sender, signature, unixFDs
}

/// The message types' codes in the fixed header.
private extension Message.Kind {
    var wireCode: UInt8 {
        switch self {
        case .methodCall: 1
        case .methodReturn: 2
        case .error: 3
        case .signal: 4
        }
    }

    init?(wireCode: UInt8) {
        switch wireCode {
        case 1: self = .methodCall
        case 2: self = .methodReturn
        case 3: self = .error
        case 4: self = .signal
        default: return nil
        }
    }
}

/// Flag bits of the fixed header.
private let noReplyExpectedFlag: UInt8 = 0x1
private let noAutoStartFlag: UInt8 = 0x2

extension Message {
    /// The message in wire format, little-endian, with serial `serial` (which a receiver requires to be non-zero).
    /// - Throws: ``WireWriter/Failure`` when a value does not have the type its container declares, or the body
    ///   carries a Unix file descriptor.
    public func wireBytes(serial: UInt32) throws(WireWriter.Failure) -> [UInt8] {
        var writer = WireWriter(capacity: 512)
        let flags = (noReplyExpected ? noReplyExpectedFlag : 0) | (noAutoStart ? noAutoStartFlag : 0)
        writer.append(contentsOf: [UInt8(ascii: "l"), kind.wireCode, flags, 1])
        writer.append(UInt32(0))
        writer.append(serial)
        let types = body.map(\.type)
        try writer.writeArray(alignment: 8) { (writer: inout WireWriter) throws(WireWriter.Failure) in
            func field(_ code: HeaderField, _ value: DBusValue) {
                writer.align(8)
                writer.append(contentsOf: [code.rawValue])
                writer.writeSignature(of: value.type)
                // Header values are basic, written by the cases that cannot fail.
                try? writer.write(value, as: value.type)
            }
            if let path { field(.path, .objectPath(path)) }
            if let interface { field(.interface, .string(interface.rawValue)) }
            if let member { field(.member, .string(member.rawValue)) }
            if let errorName { field(.errorName, .string(errorName.rawValue)) }
            if let replySerial { field(.replySerial, .uint32(replySerial)) }
            if let destination { field(.destination, .string(destination.rawValue)) }
            if let sender { field(.sender, .string(sender.rawValue)) }
            if !types.isEmpty {
                writer.align(8)
                writer.append(contentsOf: [HeaderField.signature.rawValue])
                writer.writeSignature(of: .signature)
                writer.writeSignature(types)
            }
        }
        writer.align(8)
        let bodyStart = writer.bytes.count
        for (value, type) in zip(body, types) { try writer.write(value, as: type) }
        writer.patch(UInt32(truncatingIfNeeded: writer.bytes.count - bodyStart), at: 4)
        return writer.bytes
    }

    /// The message that `bytes` hold in wire format, and how many Unix file descriptors its header says travel with
    /// it; `nil` when the bytes are not one whole message. Meant for bytes libdbus has validated (see
    /// ``WireReader``): names are taken as they are. Each `h` value reads as descriptor -1: the bytes carry only an
    /// index into the descriptors that came with them, which the receiving library holds.
    public static func parse(wireBytes bytes: UnsafeRawBufferPointer) -> (message: Message, unixFDs: UInt32)? {
        guard bytes.count >= 16, bytes[0] == UInt8(ascii: "l") || bytes[0] == UInt8(ascii: "B"),
              let kind = Kind(wireCode: bytes[1]) else { return nil }
        let bigEndian = bytes[0] == UInt8(ascii: "B")
        var reader = WireReader(bytes, bigEndian: bigEndian, offset: 4)
        guard case .uint32(let bodyLength)? = reader.read(.uint32, depth: 0),
              case .uint32(let serial)? = reader.read(.uint32, depth: 0),
              case .array(_, let fields)? = reader.read(.array(.structure([.byte, .variant])), depth: 0)
        else { return nil }
        var message = Message(kind: kind, serial: serial)
        message.noReplyExpected = bytes[2] & noReplyExpectedFlag != 0
        message.noAutoStart = bytes[2] & noAutoStartFlag != 0
        var types: [DBusType] = []
        var unixFDs: UInt32 = 0
        for case .structure(let pair) in fields {
            guard case .byte(let code) = pair[0], case .variant(let value) = pair[1] else { return nil }
            switch (HeaderField(rawValue: code), value) {
            case (.path, .objectPath(let path)): message.path = path
            case (.interface, .string(let name)): message.interface = InterfaceName(unchecked: name)
            case (.member, .string(let name)): message.member = MemberName(unchecked: name)
            case (.errorName, .string(let name)): message.errorName = ErrorName(unchecked: name)
            case (.replySerial, .uint32(let number)): message.replySerial = number
            case (.destination, .string(let name)): message.destination = BusName(unchecked: name)
            case (.sender, .string(let name)): message.sender = BusName(unchecked: name)
            case (.signature, .signature(let signature)): types = signature.types
            case (.unixFDs, .uint32(let count)): unixFDs = count
            case (nil, _): continue  // a field this version of the specification does not know: ignored, as it says
            default: return nil
            }
        }
        let bodyStart = (reader.offset + 7) / 8 * 8
        guard bodyStart <= bytes.count, bytes.count - bodyStart == Int(bodyLength),
              let body = WireReader.readBody(UnsafeRawBufferPointer(rebasing: bytes[bodyStart...]), types: types,
                                             bigEndian: bigEndian)
        else { return nil }
        message.body = body
        return (message, unixFDs)
    }
}

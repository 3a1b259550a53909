// SPDX-License-Identifier: Apache-2.0
// Parses signature text that libdbus has already validated into DBusWire types, without re-imposing limits.

import DBusWire

/// Parsing of signatures that came from libdbus.
///
/// libdbus validated them already (length, nesting), so the decoder only rebuilds the type tree here instead of
/// re-validating with DBusWire's independent `Signature(_:)` rules, which must never make a message libdbus
/// accepted undecodable.
enum WireSignature {
    /// The complete types of `text`; `nil` only if the text is not a signature at all.
    static func parse(_ text: String) -> [DBusType]? {
        var types: [DBusType] = []
        var bytes = text.utf8[...]
        while !bytes.isEmpty {
            guard let type = parseOne(&bytes) else { return nil }
            types.append(type)
        }
        return types
    }

    /// The single complete type of `text`; `nil` unless it holds exactly one.
    static func parseSingle(_ text: String) -> DBusType? {
        guard let types = parse(text), types.count == 1 else { return nil }
        return types[0]
    }

    /// A `Signature` for libdbus-validated text, even where DBusWire's stricter parser would refuse it.
    static func signature(_ text: String) -> Signature? {
        if let signature = Signature(text) { return signature }
        return parse(text).map { Signature($0) }
    }

    private static func parseOne(_ bytes: inout Substring.UTF8View) -> DBusType? {
        guard let code = bytes.popFirst() else { return nil }
        switch code {
        case UInt8(ascii: "y"): return .byte
        case UInt8(ascii: "b"): return .boolean
        case UInt8(ascii: "n"): return .int16
        case UInt8(ascii: "q"): return .uint16
        case UInt8(ascii: "i"): return .int32
        case UInt8(ascii: "u"): return .uint32
        case UInt8(ascii: "x"): return .int64
        case UInt8(ascii: "t"): return .uint64
        case UInt8(ascii: "d"): return .double
        case UInt8(ascii: "s"): return .string
        case UInt8(ascii: "o"): return .objectPath
        case UInt8(ascii: "g"): return .signature
        case UInt8(ascii: "h"): return .unixFD
        case UInt8(ascii: "v"): return .variant
        case UInt8(ascii: "a"):
            if bytes.first == UInt8(ascii: "{") {
                bytes.removeFirst()
                guard let key = parseOne(&bytes), key.isBasic, let value = parseOne(&bytes),
                      bytes.popFirst() == UInt8(ascii: "}")
                else { return nil }
                return .dictionary(key: key, value: value)
            }
            return parseOne(&bytes).map(DBusType.array)
        case UInt8(ascii: "("):
            var fields: [DBusType] = []
            while let next = bytes.first, next != UInt8(ascii: ")") {
                guard let field = parseOne(&bytes) else { return nil }
                fields.append(field)
            }
            guard bytes.popFirst() == UInt8(ascii: ")"), !fields.isEmpty else { return nil }
            return .structure(fields)
        default:
            return nil
        }
    }
}

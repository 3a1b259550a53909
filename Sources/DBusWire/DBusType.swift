// SPDX-License-Identifier: Apache-2.0
// The D-Bus type system as a tree, parsed from and printed to signature text.

/// One complete D-Bus type.
public indirect enum DBusType: Hashable, Sendable, CustomStringConvertible {
    case byte, boolean, int16, uint16, int32, uint32, int64, uint64, double
    case string, objectPath, signature, unixFD
    case variant
    /// `aT`; use ``dictionary(key:value:)`` for `a{KV}`.
    case array(DBusType)
    /// `a{KV}`: an array of dict entries whose key is a basic type.
    case dictionary(key: DBusType, value: DBusType)
    /// `(T...)`, at least one field.
    case structure([DBusType])

    /// The signature text of this type.
    public var description: String {
        switch self {
        case .array(let element): "a" + element.description
        case .dictionary(let key, let value): "a{" + key.description + value.description + "}"
        case .structure(let fields): "(" + fields.map(\.description).joined() + ")"
        default: String(Character(Unicode.Scalar(basicCode)))
        }
    }

    /// Whether this is a basic type (usable as a dict key).
    public var isBasic: Bool {
        switch self {
        case .variant, .array, .dictionary, .structure: false
        default: true
        }
    }

    /// Whether the signature of this type is valid without looking further: a basic type, a variant, or one array or
    /// dictionary of those (with a basic key). Such a signature is at most five characters and two containers deep,
    /// far from the specification's limits; only structures and deeper nesting need the full check. Most values a
    /// service sends are of these types, and each variant's type would otherwise be printed and parsed again.
    public var isPlainlyValid: Bool {
        switch self {
        case .array(let element): element.isBasic || element == .variant
        case .dictionary(let key, let value): key.isBasic && (value.isBasic || value == .variant)
        case .structure: false
        default: true
        }
    }
}

extension DBusType {
    /// The boundary a value of this type starts on in the wire format.
    public var wireAlignment: Int {
        switch self {
        case .byte, .signature, .variant: 1
        case .int16, .uint16: 2
        case .boolean, .int32, .uint32, .string, .objectPath, .unixFD, .array, .dictionary: 4
        case .int64, .uint64, .double, .structure: 8
        }
    }

    /// The one-character signature code of a basic type or variant; containers have none (0).
    var basicCode: UInt8 {
        switch self {
        case .byte: UInt8(ascii: "y")
        case .boolean: UInt8(ascii: "b")
        case .int16: UInt8(ascii: "n")
        case .uint16: UInt8(ascii: "q")
        case .int32: UInt8(ascii: "i")
        case .uint32: UInt8(ascii: "u")
        case .int64: UInt8(ascii: "x")
        case .uint64: UInt8(ascii: "t")
        case .double: UInt8(ascii: "d")
        case .string: UInt8(ascii: "s")
        case .objectPath: UInt8(ascii: "o")
        case .signature: UInt8(ascii: "g")
        case .unixFD: UInt8(ascii: "h")
        case .variant: UInt8(ascii: "v")
        case .array, .dictionary, .structure: 0
        }
    }

    /// The basic type or variant whose one-character signature code is `code`; `nil` for anything else.
    init?(basicCode code: UInt8) {
        switch code {
        case UInt8(ascii: "y"): self = .byte
        case UInt8(ascii: "b"): self = .boolean
        case UInt8(ascii: "n"): self = .int16
        case UInt8(ascii: "q"): self = .uint16
        case UInt8(ascii: "i"): self = .int32
        case UInt8(ascii: "u"): self = .uint32
        case UInt8(ascii: "x"): self = .int64
        case UInt8(ascii: "t"): self = .uint64
        case UInt8(ascii: "d"): self = .double
        case UInt8(ascii: "s"): self = .string
        case UInt8(ascii: "o"): self = .objectPath
        case UInt8(ascii: "g"): self = .signature
        case UInt8(ascii: "h"): self = .unixFD
        case UInt8(ascii: "v"): self = .variant
        default: return nil
        }
    }
}

/// Parses signature text into complete types, enforcing the D-Bus specification's limits.
struct SignatureParser {
    static let maximumLength = 255
    static let maximumContainerDepth = 32

    private let bytes: [UInt8]
    private var index = 0

    private init(_ text: String) { bytes = Array(text.utf8) }

    /// The complete types of `text`, or `nil` when it is not a valid signature.
    static func parse(_ text: String) -> [DBusType]? {
        guard text.utf8.count <= maximumLength else { return nil }
        var parser = SignatureParser(text)
        var types: [DBusType] = []
        while parser.index < parser.bytes.count {
            guard let type = parser.parseOne(arrayDepth: 0, structDepth: 0) else { return nil }
            types.append(type)
        }
        return types
    }

    private mutating func parseOne(arrayDepth: Int, structDepth: Int) -> DBusType? {
        guard index < bytes.count else { return nil }
        let code = bytes[index]
        index += 1
        if let basic = DBusType(basicCode: code) { return basic }
        switch code {
        case UInt8(ascii: "a"):
            guard arrayDepth < Self.maximumContainerDepth, index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: "{") {
                index += 1
                // Like libdbus, a dict entry counts against the array limit only, not the struct limit.
                guard let key = parseOne(arrayDepth: arrayDepth + 1, structDepth: structDepth), key.isBasic,
                      let value = parseOne(arrayDepth: arrayDepth + 1, structDepth: structDepth),
                      index < bytes.count, bytes[index] == UInt8(ascii: "}")
                else { return nil }
                index += 1
                return .dictionary(key: key, value: value)
            }
            guard let element = parseOne(arrayDepth: arrayDepth + 1, structDepth: structDepth) else { return nil }
            return .array(element)
        case UInt8(ascii: "("):
            guard structDepth < Self.maximumContainerDepth else { return nil }
            var fields: [DBusType] = []
            while index < bytes.count, bytes[index] != UInt8(ascii: ")") {
                guard let field = parseOne(arrayDepth: arrayDepth, structDepth: structDepth + 1) else { return nil }
                fields.append(field)
            }
            guard index < bytes.count, !fields.isEmpty else { return nil }
            index += 1
            return .structure(fields)
        default:
            return nil
        }
    }
}

/// A validated D-Bus type signature such as `a{sv}` or `(oayays)`.
public struct Signature: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The signature text.
    public let rawValue: String
    /// The complete types the signature lists, in order.
    public let types: [DBusType]

    /// Validates and parses a signature; `nil` when `rawValue` is not a valid signature.
    public init?(_ rawValue: String) {
        guard let types = SignatureParser.parse(rawValue) else { return nil }
        self.rawValue = rawValue
        self.types = types
    }

    /// The signature of a sequence of types.
    public init(_ types: [DBusType]) {
        self.types = types
        self.rawValue = types.map(\.description).joined()
    }

    /// Creates a signature from a literal; an invalid literal is a programming error.
    public init(stringLiteral value: String) {
        guard let parsed = Signature(value) else { preconditionFailure("invalid signature literal \(value)") }
        self = parsed
    }

    /// The empty signature (a message with no arguments).
    public static let empty = Signature([])

    public var description: String { rawValue }

    public static func == (lhs: Signature, rhs: Signature) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}

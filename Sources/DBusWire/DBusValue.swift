// SPDX-License-Identifier: Apache-2.0
// A D-Bus value as a tree of Swift enum cases, the one shape every module uses for message bodies.

/// A received or to-be-sent Unix file descriptor. Whoever holds a received one owns it and must close it.
public struct UnixFileDescriptor: Hashable, Sendable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
}

/// One entry of a D-Bus dictionary (`{KV}`), kept in wire order.
public struct DictEntry: Hashable, Sendable {
    public var key: DBusValue
    public var value: DBusValue
    public init(_ key: DBusValue, _ value: DBusValue) {
        self.key = key
        self.value = value
    }
}

/// Any D-Bus value. Byte arrays have a dedicated case (``bytes(_:)``): the decoder always produces it for `ay`,
/// so large secrets never become arrays of enum cases.
///
/// Only ``variant(_:)`` holds a value of its own type directly, so only it is boxed: the containers keep their
/// members in arrays, and numbers and strings are stored inline, so decoding or building a reply does not allocate
/// once per value.
public enum DBusValue: Hashable, Sendable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(ObjectPath)
    case signature(Signature)
    case unixFD(UnixFileDescriptor)
    /// `ay`, the fast path for byte arrays.
    case bytes([UInt8])
    /// `aT` for any element type other than a dict entry; the element type is kept so empty arrays keep their signature.
    case array(DBusType, [DBusValue])
    /// `a{KV}`.
    case dictionary(key: DBusType, value: DBusType, [DictEntry])
    case structure([DBusValue])
    indirect case variant(DBusValue)

    /// The complete type of this value.
    public var type: DBusType {
        switch self {
        case .byte: .byte
        case .boolean: .boolean
        case .int16: .int16
        case .uint16: .uint16
        case .int32: .int32
        case .uint32: .uint32
        case .int64: .int64
        case .uint64: .uint64
        case .double: .double
        case .string: .string
        case .objectPath: .objectPath
        case .signature: .signature
        case .unixFD: .unixFD
        case .bytes: .array(.byte)
        case .array(let element, _): .array(element)
        case .dictionary(let key, let value, _): .dictionary(key: key, value: value)
        case .structure(let fields): .structure(fields.map(\.type))
        case .variant: .variant
        }
    }

    /// Whether this value is of `type`; the same as `self.type == type` without building the type of a container
    /// value, which allocates.
    public func hasType(_ type: DBusType) -> Bool {
        switch (self, type) {
        case (.byte, .byte), (.boolean, .boolean), (.int16, .int16), (.uint16, .uint16), (.int32, .int32),
             (.uint32, .uint32), (.int64, .int64), (.uint64, .uint64), (.double, .double), (.string, .string),
             (.objectPath, .objectPath), (.signature, .signature), (.unixFD, .unixFD), (.variant, .variant),
             (.bytes, .array(.byte)):
            return true
        case (.array(let element, _), .array(let expected)):
            return element == expected
        case (.dictionary(let key, let value, _), .dictionary(let expectedKey, let expectedValue)):
            return key == expectedKey && value == expectedValue
        case (.structure(let fields), .structure(let expected)):
            return fields.count == expected.count && zip(fields, expected).allSatisfy { $0.hasType($1) }
        default:
            return false
        }
    }

    /// Whether the value is well formed: every element of a container has the container's declared type.
    /// The transport checks this before marshalling so a malformed tree is an error, never a libdbus abort.
    public var isWellFormed: Bool {
        switch self {
        case .array(let element, let values):
            return values.allSatisfy { $0.hasType(element) && $0.isWellFormed }
        case .dictionary(let key, let value, let entries):
            guard key.isBasic else { return false }
            return entries.allSatisfy {
                $0.key.hasType(key) && $0.value.hasType(value) && $0.key.isWellFormed && $0.value.isWellFormed
            }
        case .structure(let fields):
            return !fields.isEmpty && fields.allSatisfy(\.isWellFormed)
        case .variant(let inner):
            return inner.isWellFormed
        case .string(let text):
            return !text.utf8.contains(0)
        default:
            return true
        }
    }
}

// MARK: - Typed access

extension DBusValue {
    /// The string payload of `s`.
    public var string: String? { if case .string(let v) = self { v } else { nil } }
    /// The payload of `o`.
    public var objectPath: ObjectPath? { if case .objectPath(let v) = self { v } else { nil } }
    /// The payload of `b`.
    public var bool: Bool? { if case .boolean(let v) = self { v } else { nil } }
    /// The payload of `t`.
    public var uint64: UInt64? { if case .uint64(let v) = self { v } else { nil } }
    /// The payload of `u`.
    public var uint32: UInt32? { if case .uint32(let v) = self { v } else { nil } }
    /// The payload of `ay` (either representation).
    public var bytes: [UInt8]? {
        switch self {
        case .bytes(let v): return v
        case .array(.byte, let values):
            var out: [UInt8] = []
            out.reserveCapacity(values.count)
            for case .byte(let b) in values { out.append(b) }
            return out.count == values.count ? out : nil
        default: return nil
        }
    }
    /// The elements of any array (dictionaries excluded).
    public var arrayElements: [DBusValue]? {
        switch self {
        case .array(_, let values): values
        case .bytes(let v): v.map(DBusValue.byte)
        default: nil
        }
    }
    /// The entries of a dictionary.
    public var dictionaryEntries: [DictEntry]? { if case .dictionary(_, _, let e) = self { e } else { nil } }
    /// The fields of a structure.
    public var structureFields: [DBusValue]? { if case .structure(let f) = self { f } else { nil } }
    /// The content of a variant.
    public var variantValue: DBusValue? { if case .variant(let v) = self { v } else { nil } }

    /// `a{ss}` read as a Swift dictionary; `nil` unless the value is exactly that type.
    public var stringDictionary: [String: String]? {
        guard case .dictionary(.string, .string, let entries) = self else { return nil }
        var result: [String: String] = [:]
        result.reserveCapacity(entries.count)
        for entry in entries {
            guard let k = entry.key.string, let v = entry.value.string else { return nil }
            result[k] = v
        }
        return result
    }

    /// `a{sv}` read as a Swift dictionary of the variants' contents.
    public var variantDictionary: [String: DBusValue]? {
        guard case .dictionary(.string, .variant, let entries) = self else { return nil }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            guard let k = entry.key.string, let v = entry.value.variantValue else { return nil }
            result[k] = v
        }
        return result
    }
}

// MARK: - Convenient construction

extension DBusValue {
    /// `a{ss}` from a Swift dictionary, keys sorted so output is deterministic.
    public static func stringDictionary(_ dictionary: [String: String]) -> DBusValue {
        .dictionary(key: .string, value: .string,
                    dictionary.sorted { $0.key < $1.key }.map { DictEntry(.string($0.key), .string($0.value)) })
    }

    /// `a{sv}` from a Swift dictionary, keys sorted so output is deterministic.
    public static func variantDictionary(_ dictionary: [String: DBusValue]) -> DBusValue {
        .dictionary(key: .string, value: .variant,
                    dictionary.sorted { $0.key < $1.key }.map { DictEntry(.string($0.key), .variant($0.value)) })
    }

    /// `ao` from paths.
    public static func objectPaths(_ paths: [ObjectPath]) -> DBusValue {
        .array(.objectPath, paths.map(DBusValue.objectPath))
    }
}

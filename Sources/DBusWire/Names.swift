// SPDX-License-Identifier: Apache-2.0
// Validated D-Bus names: bus, interface, member and error names.

/// Rules shared by dotted D-Bus names (interface, error and well-known bus names).
enum NameRules {
    static let maximumLength = 255

    static func isDottedName(_ string: String, allowHyphen: Bool, allowDigitStart: Bool) -> Bool {
        let utf8 = string.utf8
        guard !utf8.isEmpty, utf8.count <= maximumLength else { return false }
        var elements = 0
        var elementLength = 0
        for byte in utf8 {
            if byte == UInt8(ascii: ".") {
                guard elementLength > 0 else { return false }
                elements += 1
                elementLength = 0
                continue
            }
            let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            if isDigit && elementLength == 0 && !allowDigitStart { return false }
            guard ObjectPath.isElementByte(byte) || (allowHyphen && byte == UInt8(ascii: "-")) else { return false }
            elementLength += 1
        }
        guard elementLength > 0 else { return false }
        return elements >= 1
    }

    static func isMemberName(_ string: String) -> Bool {
        let utf8 = string.utf8
        guard let first = utf8.first, utf8.count <= maximumLength else { return false }
        guard !(first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) else { return false }
        return utf8.allSatisfy(ObjectPath.isElementByte)
    }

    static func isBusName(_ string: String) -> Bool {
        if string.hasPrefix(":") {
            return isDottedName(String(string.dropFirst()), allowHyphen: true, allowDigitStart: true)
        }
        return isDottedName(string, allowHyphen: true, allowDigitStart: false)
    }
}

/// Declares a validated name type; each conforming type differs only in its rule.
public protocol DBusName: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral, Comparable {
    var rawValue: String { get }
    init(unchecked rawValue: String)
    static func isValid(_ string: String) -> Bool
}

extension DBusName {
    /// Validates and wraps a name; `nil` when the text breaks the D-Bus rules for this kind of name.
    public init?(_ rawValue: String) {
        guard Self.isValid(rawValue) else { return nil }
        self.init(unchecked: rawValue)
    }

    /// Creates a name from a literal; an invalid literal is a programming error.
    public init(stringLiteral value: String) {
        precondition(Self.isValid(value), "invalid D-Bus name literal \(value)")
        self.init(unchecked: value)
    }

    public var description: String { rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A D-Bus interface name such as `org.freedesktop.Secret.Service`.
public struct InterfaceName: DBusName {
    public let rawValue: String
    public init(unchecked rawValue: String) { self.rawValue = rawValue }
    public static func isValid(_ string: String) -> Bool {
        NameRules.isDottedName(string, allowHyphen: false, allowDigitStart: false)
    }
}

/// A D-Bus error name such as `org.freedesktop.Secret.Error.IsLocked`.
public struct ErrorName: DBusName {
    public let rawValue: String
    public init(unchecked rawValue: String) { self.rawValue = rawValue }
    public static func isValid(_ string: String) -> Bool { InterfaceName.isValid(string) }
}

/// A D-Bus member (method or signal) name such as `OpenSession`.
public struct MemberName: DBusName {
    public let rawValue: String
    public init(unchecked rawValue: String) { self.rawValue = rawValue }
    public static func isValid(_ string: String) -> Bool { NameRules.isMemberName(string) }
}

/// A unique (`:1.42`) or well-known (`org.freedesktop.secrets`) bus name.
public struct BusName: DBusName {
    public let rawValue: String
    public init(unchecked rawValue: String) { self.rawValue = rawValue }
    public static func isValid(_ string: String) -> Bool { NameRules.isBusName(string) }
    /// Whether this is a connection's unique name (`:1.42`).
    public var isUnique: Bool { rawValue.hasPrefix(":") }
}

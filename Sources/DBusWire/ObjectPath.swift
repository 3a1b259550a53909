// SPDX-License-Identifier: Apache-2.0
// A validated D-Bus object path.

/// A D-Bus object path such as `/org/freedesktop/secrets`, validated on construction.
///
/// A valid path is `/`, or `/`-separated non-empty elements made of `[A-Za-z0-9_]`, with no trailing slash.
public struct ObjectPath: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The textual form of the path.
    public let rawValue: String

    /// The root path `/`, which the Secret Service uses to mean "no object".
    public static let root = ObjectPath(unchecked: "/")

    /// Validates and wraps a path.
    /// - Parameter rawValue: the candidate path.
    /// - Returns: `nil` when `rawValue` is not a valid D-Bus object path.
    public init?(_ rawValue: String) {
        guard ObjectPath.isValid(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// Wraps a path already validated elsewhere (for example by libdbus).
    public init(unchecked rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a path from a literal; an invalid literal is a programming error.
    public init(stringLiteral value: String) {
        precondition(ObjectPath.isValid(value), "invalid object path literal \(value)")
        self.rawValue = value
    }

    /// The path's elements, `[]` for `/`.
    public var elements: [Substring] {
        rawValue.split(separator: "/", omittingEmptySubsequences: true)
    }

    /// Appends one element; the element must already be a valid path element.
    public func appending(_ element: String) -> ObjectPath {
        precondition(ObjectPath.isValidElement(element[...]), "invalid path element")
        return ObjectPath(unchecked: rawValue == "/" ? "/" + element : rawValue + "/" + element)
    }

    /// Whether `self` lies strictly below `ancestor`.
    public func isDescendant(of ancestor: ObjectPath) -> Bool {
        if ancestor.rawValue == "/" { return rawValue != "/" }
        return rawValue.hasPrefix(ancestor.rawValue + "/")
    }

    public var description: String { rawValue }

    public static func < (lhs: ObjectPath, rhs: ObjectPath) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Whether `string` is a valid D-Bus object path.
    public static func isValid(_ string: String) -> Bool {
        let utf8 = string.utf8
        guard utf8.first == UInt8(ascii: "/") else { return false }
        if utf8.count == 1 { return true }
        guard utf8.last != UInt8(ascii: "/") else { return false }
        var previousWasSlash = false
        for byte in utf8 {
            if byte == UInt8(ascii: "/") {
                if previousWasSlash { return false }
                previousWasSlash = true
            } else {
                guard isElementByte(byte) else { return false }
                previousWasSlash = false
            }
        }
        return true
    }

    /// Whether `element` is a valid single path element (`[A-Za-z0-9_]+`).
    public static func isValidElement(_ element: Substring) -> Bool {
        !element.isEmpty && element.utf8.allSatisfy(isElementByte)
    }

    static func isElementByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }
}

// SPDX-License-Identifier: Apache-2.0
// Maps Secret Service object paths to model identifiers and back.

public import DBusWire

/// Every object the Secret Service exposes, identified by model IDs. Paths are only made at the edge.
/// Identifiers are path elements (`[A-Za-z0-9_]+`), so a path maps to exactly one object and back.
public enum SecretObjectPath: Hashable, Sendable {
    case service
    case session(String)
    case collection(String)
    case item(collection: String, item: String)
    /// `/aliases/<name>`: resolves to a collection.
    case alias(String)
    /// `/aliases/<name>/<item>`: an item reached through an alias.
    case aliasItem(alias: String, item: String)
    case prompt(String)

    static let base = SecretServiceNames.servicePath

    /// Parses a path below `/org/freedesktop/secrets`; `nil` for paths outside the tree or of unknown shape.
    public init?(_ path: ObjectPath) {
        let raw = path.rawValue
        if raw == Self.base.rawValue {
            self = .service
            return
        }
        // Every call resolves its path, and GetSecrets one per item: one split of the part below the base.
        guard raw.hasPrefix(Self.prefix) else { return nil }
        let parts = raw.utf8.dropFirst(Self.prefix.utf8.count).split(separator: UInt8(ascii: "/"),
                                                                      omittingEmptySubsequences: false)
        guard let kind = parts.first, parts.count <= 3, let first = parts.dropFirst().first.map({ String(Substring($0)) }) else {
            return nil
        }
        let second = parts.count == 3 ? String(Substring(parts[2])) : nil
        switch (String(Substring(kind)), second) {
        case ("session", nil): self = .session(first)
        case ("collection", nil): self = .collection(first)
        case ("collection", let item?): self = .item(collection: first, item: item)
        case ("aliases", nil): self = .alias(first)
        case ("aliases", let item?): self = .aliasItem(alias: first, item: item)
        case ("prompt", nil): self = .prompt(first)
        default: return nil
        }
    }

    /// The object path of this object.
    public var objectPath: ObjectPath {
        switch self {
        case .service: Self.base
        case .session(let id): Self.make("session", id)
        case .collection(let id): Self.make("collection", id)
        case .item(let collection, let item): Self.make("collection", collection, item)
        case .alias(let name): Self.make("aliases", name)
        case .aliasItem(let alias, let item): Self.make("aliases", alias, item)
        case .prompt(let id): Self.make("prompt", id)
        }
    }

    /// The base path with its trailing slash, the start of every object path below it.
    private static let prefix = base.rawValue + "/"

    /// Builds the path in one string (replies list a path per item); each identifier must be a path element.
    private static func make(_ kind: String, _ ids: String...) -> ObjectPath {
        var raw = prefix + kind
        for id in ids {
            precondition(ObjectPath.isValidElement(id[...]), "invalid path element")
            raw += "/"
            raw += id
        }
        return ObjectPath(unchecked: raw)
    }
}

/// The character rule of a D-Bus path element.
public enum ObjectPathElement {
    /// Whether `byte` may appear in a path element.
    public static func isValid(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }

    /// Whether `text` is a non-empty path element, usable as an identifier.
    public static func isValid(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 255 && text.utf8.allSatisfy { isValid($0) }
    }

    /// A path element derived from free text (a collection label): every run of other characters becomes one
    /// `_`; text with nothing usable becomes `fallback`.
    public static func derive(from text: String, fallback: String) -> String {
        var out: [UInt8] = []
        for byte in text.utf8.prefix(64) {
            if isValid(byte) {
                out.append(byte)
            } else if out.last != UInt8(ascii: "_") {
                out.append(UInt8(ascii: "_"))
            }
        }
        while out.last == UInt8(ascii: "_") { out.removeLast() }
        while out.first == UInt8(ascii: "_") { out.removeFirst() }
        return out.isEmpty ? fallback : String(decoding: out, as: UTF8.self)
    }
}

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
        if path == Self.base {
            self = .service
            return
        }
        guard path.isDescendant(of: Self.base) else { return nil }
        let parts = path.elements.dropFirst(3)  // org, freedesktop, secrets
        guard let kind = parts.first else { return nil }
        let names = parts.dropFirst().map(String.init)
        switch (kind, names.count) {
        case ("session", 1): self = .session(names[0])
        case ("collection", 1): self = .collection(names[0])
        case ("collection", 2): self = .item(collection: names[0], item: names[1])
        case ("aliases", 1): self = .alias(names[0])
        case ("aliases", 2): self = .aliasItem(alias: names[0], item: names[1])
        case ("prompt", 1): self = .prompt(names[0])
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

    private static func make(_ kind: String, _ ids: String...) -> ObjectPath {
        var path = base.appending(kind)
        for id in ids { path = path.appending(id) }
        return path
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

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
        // Every call resolves its path, and GetSecrets one per item: the path's bytes are scanned in place, and only
        // the identifiers become strings (short ones need no allocation).
        var raw = path.rawValue
        guard let parsed = raw.withUTF8(Self.parse) else { return nil }
        self = parsed
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> SecretObjectPath? {
        guard bytes.starts(with: baseBytes) else { return nil }
        if bytes.count == baseBytes.count { return .service }
        let below = bytes[baseBytes.count...]
        guard below.first == slash else { return nil }
        let kindStart = below.startIndex + 1
        guard let kindEnd = below[kindStart...].firstIndex(of: slash) else { return nil }
        let kind = bytes[kindStart..<kindEnd]
        let ids = bytes[(kindEnd + 1)...]
        let first: Slice<UnsafeBufferPointer<UInt8>>, second: String?
        if let split = ids.firstIndex(of: slash) {
            let rest = bytes[(split + 1)...]
            guard !rest.contains(slash) else { return nil }
            (first, second) = (bytes[ids.startIndex..<split], text(rest))
        } else {
            (first, second) = (ids, nil)
        }
        let id = text(first)
        switch second {
        case nil where kind.elementsEqual(Kind.session): return .session(id)
        case nil where kind.elementsEqual(Kind.collection): return .collection(id)
        case let item? where kind.elementsEqual(Kind.collection): return .item(collection: id, item: item)
        case nil where kind.elementsEqual(Kind.aliases): return .alias(id)
        case let item? where kind.elementsEqual(Kind.aliases): return .aliasItem(alias: id, item: item)
        case nil where kind.elementsEqual(Kind.prompt): return .prompt(id)
        default: return nil
        }
    }

    private static func text(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes), as: UTF8.self)
    }

    /// The kinds of object below the base, as bytes: comparing a path's bytes with them needs no string.
    private enum Kind {
        static let session = Array("session".utf8)
        static let collection = Array("collection".utf8)
        static let aliases = Array("aliases".utf8)
        static let prompt = Array("prompt".utf8)
    }

    /// The object path of this object.
    public var objectPath: ObjectPath {
        switch self {
        case .service: Self.base
        case .session(let id): Self.make(Kind.session, id)
        case .collection(let id): Self.make(Kind.collection, id)
        case .item(let collection, let item): Self.make(Kind.collection, collection, item)
        case .alias(let name): Self.make(Kind.aliases, name)
        case .aliasItem(let alias, let item): Self.make(Kind.aliases, alias, item)
        case .prompt(let id): Self.make(Kind.prompt, id)
        }
    }

    private static let slash = UInt8(ascii: "/")
    private static let baseBytes = Array(base.rawValue.utf8)

    /// Builds the path into one allocation of its exact size (replies list a path per item, and growing a string
    /// piece by piece reallocates it several times); each identifier must be a path element.
    private static func make(_ kind: [UInt8], _ first: String, _ second: String? = nil) -> ObjectPath {
        var first = first, second = second
        let count = baseBytes.count + 1 + kind.count + 1 + first.utf8.count + (second.map { 1 + $0.utf8.count } ?? 0)
        let raw = String(unsafeUninitializedCapacity: count) { buffer in
            var at = 0
            func put(_ bytes: UnsafeBufferPointer<UInt8>) {
                at = buffer[at...].initialize(fromContentsOf: bytes)
            }
            func put(_ byte: UInt8) {
                buffer[at] = byte
                at += 1
            }
            func putElement(_ id: inout String) {
                id.withUTF8 { bytes in
                    precondition(!bytes.isEmpty && bytes.allSatisfy(ObjectPathElement.isValid), "invalid path element")
                    put(bytes)
                }
            }
            baseBytes.withUnsafeBufferPointer(put)
            put(slash)
            kind.withUnsafeBufferPointer(put)
            put(slash)
            putElement(&first)
            if second != nil {
                put(slash)
                putElement(&second!)
            }
            return at
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

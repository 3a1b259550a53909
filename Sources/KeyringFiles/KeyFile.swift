// SPDX-License-Identifier: Apache-2.0
// A reader for GLib's key file syntax ("[group]" and "key=value" lines), as gnome-keyring's textual files use it.

/// A parsed GLib key file: groups in file order, each with its entries.
///
/// It follows `GKeyFile`'s rules that matter for gnome-keyring's files: `#` comments and blank lines are skipped,
/// groups with the same name merge, a later key replaces an earlier one, keys with a locale suffix (`name[de]`) are
/// ignored, and a trailing `\r` is dropped. Values keep their raw text; ``string(_:_:)`` applies GLib's
/// `g_key_file_get_string` rules (leading spaces dropped, `\s \n \t \r \\` escapes).
struct KeyFile {
    struct Group {
        var name: String
        var entries: [String: String]
    }

    /// The groups in the order they first appear.
    private(set) var groups: [Group] = []
    private var groupIndex: [String: Int] = [:]

    /// Parses UTF-8 text.
    /// - Throws: ``KeyringFileError/malformed(_:)`` for invalid UTF-8, a line that is neither a group, an entry nor a
    ///   comment, or an entry before the first group.
    init(parsing bytes: [UInt8]) throws {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw KeyringFileError.malformed("the text file is not valid UTF-8")
        }
        var current: Int?
        var lineNumber = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            var line = Substring(rawLine)
            if line.last == "\r" { line = line.dropLast() }
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.first == "#" { continue }
            if trimmed.first == "[" {
                guard trimmed.last == "]", trimmed.count >= 3 else {
                    throw KeyringFileError.malformed("line \(lineNumber) is not a valid group header")
                }
                current = group(named: String(trimmed.dropFirst().dropLast()))
                continue
            }
            guard let equals = trimmed.firstIndex(of: "=") else {
                throw KeyringFileError.malformed("line \(lineNumber) is neither a group, an entry nor a comment")
            }
            guard let current else { throw KeyringFileError.malformed("line \(lineNumber) comes before any group") }
            var key = trimmed[..<equals]
            while key.last == " " || key.last == "\t" { key = key.dropLast() }
            guard !key.isEmpty else { throw KeyringFileError.malformed("line \(lineNumber) has an empty key") }
            if key.contains("[") { continue }  // a localized value: gnome-keyring never writes or reads them
            groups[current].entries[String(key)] = String(trimmed[trimmed.index(after: equals)...])
        }
    }

    private mutating func group(named name: String) -> Int {
        if let index = groupIndex[name] { return index }
        groups.append(Group(name: name, entries: [:]))
        groupIndex[name] = groups.count - 1
        return groups.count - 1
    }

    /// The raw value text (everything after the `=`), or `nil` when absent.
    func raw(_ group: String, _ key: String) -> String? {
        groupIndex[group].flatMap { groups[$0].entries[key] }
    }

    /// The value as `g_key_file_get_string` returns it, or `nil` when absent.
    /// - Throws: ``KeyringFileError/malformed(_:)`` for an invalid escape.
    func string(_ group: String, _ key: String) throws -> String? {
        guard let raw = raw(group, key) else { return nil }
        return try Self.unescape(raw.drop { $0 == " " || $0 == "\t" }, what: "[\(group)] \(key)")
    }

    /// An unsigned decimal value (`g_ascii_strtoull` with nothing after the digits), or `nil` when absent or not a
    /// number, as gnome-keyring treats it.
    func unsigned(_ group: String, _ key: String) -> UInt64? {
        guard let raw = raw(group, key) else { return nil }
        return UInt64(raw.drop { $0 == " " || $0 == "\t" })
    }

    static func unescape(_ value: Substring, what: String) throws -> String {
        guard value.contains("\\") else { return String(value) }
        var result = ""
        var iterator = value.makeIterator()
        while let character = iterator.next() {
            guard character == "\\" else {
                result.append(character)
                continue
            }
            switch iterator.next() {
            case "s": result.append(" ")
            case "n": result.append("\n")
            case "t": result.append("\t")
            case "r": result.append("\r")
            case "\\": result.append("\\")
            default: throw KeyringFileError.malformed("\(what) has an invalid escape sequence")
            }
        }
        return result
    }
}

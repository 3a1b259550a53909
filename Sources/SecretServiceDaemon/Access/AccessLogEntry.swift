// SPDX-License-Identifier: Apache-2.0
// One entry of the access log: which application, what it wanted, what was decided; never a secret or a label.

/// One access decision as the access log keeps it (docs/ACCESS-CONTROL.md, "The access log"): its line form is
/// the plaintext of one sealed record (``AccessLogRecord``).
///
/// It names items and collections by id, as the collection files do in clear, never by label, and holds no secret,
/// attribute or command line: `coffer access log` shows it to any program of the user that asks.
public struct AccessLogEntry: Sendable, Hashable {
    /// What happened. The raw values are what the log file, `io.coffer.Access.ReadLog` and `coffer access log` show.
    public enum Outcome: String, Sendable, Hashable, CaseIterable {
        /// The user answered "Allow once" to a prompt.
        case allowedOnce = "allowed-once"
        /// The user answered "Always allow".
        case alwaysAllowed = "always-allowed"
        /// The user answered "Deny".
        case denied
        /// The prompt ended without an answer: the client dismissed it or left the bus.
        case dismissed
        /// The user confirmed an `io.coffer.Access.Grant` made ahead of time.
        case granted
        /// The user turned a grant down.
        case grantRefused = "grant-refused"
        /// "Always allow" was taken back (`coffer access revoke`).
        case revoked
        /// The application used an item it may not use without asking (read, change or delete), and was refused;
        /// logged once per item per connection.
        case refused
        /// An item nobody owned (older than creators, or imported) became the application's on its first use
        /// under `ask`.
        case adopted
        /// The application read the item's secret: one it owns, or was allowed (the allowing decision is logged
        /// apart, once).
        case read
        /// The application changed the item's secret, label or attributes, or replaced it.
        case changed
        /// The application deleted the item.
        case deleted
        /// A process of another user called, and was refused; `application` is `uid:N`.
        case otherUser = "other-user"
    }

    /// Seconds since 1970 (UTC).
    public var time: UInt64
    public var outcome: Outcome
    /// The application the decision is about, as ``AppIdentity/description`` writes it (`uid:N` for another user).
    public var application: String
    /// The process that asked; 0 when unknown.
    public var processID: UInt32
    /// The collection id; empty when the decision concerns no collection (another user's call).
    public var collection: String
    /// The item id; empty when the decision concerns the whole collection.
    public var item: String
    /// The application that made the change when it is not ``application`` (the one that ran `coffer access
    /// revoke` or `grant`); empty otherwise.
    public var requester: String

    public init(time: UInt64, outcome: Outcome, application: String, processID: UInt32, collection: String,
                item: String = "", requester: String = "") {
        self.time = time
        self.outcome = outcome
        self.application = application
        self.processID = processID
        self.collection = collection
        self.item = item
        self.requester = requester
    }

    // MARK: - Line form

    /// The format's first field, so a later change of the line can be told apart.
    static let version = "1"

    /// `1 TAB time TAB outcome TAB application TAB pid TAB collection TAB item TAB requester LF`, with backslash,
    /// tab and newline escaped in the text fields (paths may hold them).
    var line: [UInt8] {
        let fields = [Self.version, String(time), outcome.rawValue, Self.escaped(application), String(processID),
                      Self.escaped(collection), Self.escaped(item), Self.escaped(requester)]
        return Array((fields.joined(separator: "\t") + "\n").utf8)
    }

    /// Parses one line (without its newline); `nil` for a line that is not an entry (a torn or foreign line). Split
    /// at tab bytes, not characters: a tab followed by a combining mark is one character.
    init?(line: ArraySlice<UInt8>) {
        let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        guard fields.count == 8, fields[0] == Self.version, let time = UInt64(fields[1]),
              let outcome = Outcome(rawValue: fields[2]), let processID = UInt32(fields[4]),
              let application = Self.unescaped(fields[3]), let collection = Self.unescaped(fields[5]),
              let item = Self.unescaped(fields[6]), let requester = Self.unescaped(fields[7])
        else { return nil }
        self.init(time: time, outcome: outcome, application: application, processID: processID,
                  collection: collection, item: item, requester: requester)
    }

    /// Escapes per scalar: as characters, `\r\n` would be one and slip through.
    static func escaped(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out.append(contentsOf: "\\\\".unicodeScalars)
            case "\t": out.append(contentsOf: "\\t".unicodeScalars)
            case "\n": out.append(contentsOf: "\\n".unicodeScalars)
            case "\r": out.append(contentsOf: "\\r".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    static func unescaped(_ text: String) -> String? {
        var out = String.UnicodeScalarView()
        var escaping = false
        for scalar in text.unicodeScalars {
            if escaping {
                switch scalar {
                case "\\": out.append("\\")
                case "t": out.append("\t")
                case "n": out.append("\n")
                case "r": out.append("\r")
                default: return nil
                }
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else {
                out.append(scalar)
            }
        }
        return escaping ? nil : String(out)
    }
}

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
    /// How many times it happened, from ``time`` to ``lastTime``: uses of one item by one process that are written
    /// together are one entry (``aggregated(_:)``); decisions are always one each.
    public var count: UInt32
    /// Seconds since 1970 of the last time counted; ``time`` for an entry counted once.
    public var lastTime: UInt64

    public init(time: UInt64, outcome: Outcome, application: String, processID: UInt32, collection: String,
                item: String = "", requester: String = "", count: UInt32 = 1, lastTime: UInt64? = nil) {
        self.time = time
        self.outcome = outcome
        self.application = application
        self.processID = processID
        self.collection = collection
        self.item = item
        self.requester = requester
        self.count = count
        self.lastTime = lastTime ?? time
    }

    /// Entries that differ only in time made one, counted, in the order of their first time: a client reading
    /// one item in a loop costs one sealed entry per batch, not one per read, and the bounded log keeps a longer
    /// history.
    static func aggregated(_ entries: [AccessLogEntry]) -> [AccessLogEntry] {
        var merged: [AccessLogEntry] = []
        var positions: [Sameness: Int] = [:]
        for entry in entries {
            let key = Sameness(entry: entry)
            if let at = positions[key] {
                let (sum, overflow) = merged[at].count.addingReportingOverflow(entry.count)
                merged[at].count = overflow ? .max : sum
                merged[at].time = min(merged[at].time, entry.time)
                merged[at].lastTime = max(merged[at].lastTime, entry.lastTime)
            } else {
                positions[key] = merged.count
                merged.append(entry)
            }
        }
        return merged
    }

    /// Entries that ``aggregated(_:)`` makes one: equal in every field but the times and the count. Hashed by
    /// process and item only, which tell most uses apart, rather than by every text field.
    private struct Sameness: Hashable {
        let entry: AccessLogEntry

        static func == (a: Sameness, b: Sameness) -> Bool {
            a.entry.processID == b.entry.processID && a.entry.outcome == b.entry.outcome && a.entry.item == b.entry.item
                && a.entry.collection == b.entry.collection && a.entry.application == b.entry.application
                && a.entry.requester == b.entry.requester
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(entry.processID)
            hasher.combine(entry.item)
        }
    }

    // MARK: - Line form

    /// The line form's first field, which names the fields after it: `2` since entries carry a count (files of
    /// ``AccessLogFormat/version`` 2); `1` lines, without count, are read in files of version 1.
    static let version = "2"

    /// `2 TAB time TAB outcome TAB application TAB pid TAB collection TAB item TAB requester TAB count TAB last-time
    /// LF`, with backslash, tab, CR and LF escaped in the text fields (paths may hold them).
    var line: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + application.utf8.count + collection.utf8.count + item.utf8.count
                              + requester.utf8.count)
        appendLine(to: &bytes)
        return bytes
    }

    /// Appends ``line`` to `bytes`: a batch of uses is built into one buffer, without a string per entry.
    func appendLine(to bytes: inout [UInt8]) {
        let tab = UInt8(ascii: "\t")
        bytes.append(contentsOf: Self.version.utf8)
        bytes.append(tab)
        bytes.append(contentsOf: String(time).utf8)
        bytes.append(tab)
        bytes.append(contentsOf: outcome.rawValue.utf8)
        bytes.append(tab)
        Self.appendEscaped(application, to: &bytes)
        bytes.append(tab)
        bytes.append(contentsOf: String(processID).utf8)
        bytes.append(tab)
        Self.appendEscaped(collection, to: &bytes)
        bytes.append(tab)
        Self.appendEscaped(item, to: &bytes)
        bytes.append(tab)
        Self.appendEscaped(requester, to: &bytes)
        bytes.append(tab)
        bytes.append(contentsOf: String(count).utf8)
        bytes.append(tab)
        bytes.append(contentsOf: String(lastTime).utf8)
        bytes.append(UInt8(ascii: "\n"))
    }

    /// Parses one line (without its newline) of a file whose lines are of `version`; `nil` for a line that is not
    /// an entry (a torn or foreign line, or one of another version than its file's). Split at tab bytes, not
    /// characters: a tab followed by a combining mark is one character.
    init?(line: ArraySlice<UInt8>, version: String = AccessLogEntry.version) {
        let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        let counted = version == "2"
        guard version == "1" || counted, fields.count == (counted ? 10 : 8), fields[0] == version,
              let time = UInt64(fields[1]), let outcome = Outcome(rawValue: fields[2]),
              let processID = UInt32(fields[4]), let application = Self.unescaped(fields[3]),
              let collection = Self.unescaped(fields[5]), let item = Self.unescaped(fields[6]),
              let requester = Self.unescaped(fields[7])
        else { return nil }
        var count: UInt32 = 1
        var lastTime = time
        if counted {
            guard let written = UInt32(fields[8]), written >= 1, let last = UInt64(fields[9]), last >= time
            else { return nil }
            (count, lastTime) = (written, last)
        }
        self.init(time: time, outcome: outcome, application: application, processID: processID,
                  collection: collection, item: item, requester: requester, count: count, lastTime: lastTime)
    }

    /// Escapes per byte: the four escaped characters are ASCII, whose bytes never occur inside a longer UTF-8
    /// sequence, so this is the escaping per scalar (`\r\n` is two, not one character) at a fraction of its cost.
    static func appendEscaped(_ text: String, to bytes: inout [UInt8]) {
        for byte in text.utf8 {
            let escape: UInt8? = switch byte {
            case UInt8(ascii: "\\"): UInt8(ascii: "\\")
            case UInt8(ascii: "\t"): UInt8(ascii: "t")
            case UInt8(ascii: "\n"): UInt8(ascii: "n")
            case UInt8(ascii: "\r"): UInt8(ascii: "r")
            default: nil
            }
            if let escape {
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(escape)
            } else {
                bytes.append(byte)
            }
        }
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

// SPDX-License-Identifier: Apache-2.0
// `coffer access log`: the access decisions cofferd recorded, filtered by time, application, collection or item.

import ArgumentParser
import DBusWire
import Foundation
import SecretServiceClient
import SecretServiceProtocol

struct AccessLogCommand: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Show the access log: which application read, changed, was allowed, denied or refused what, and when.",
        discussion: """
            Each line: the time (UTC), the outcome (allowed-once, always-allowed, denied, dismissed, granted, \
            grant-refused, revoked, refused, adopted, other-user; read, changed and deleted for each allowed use, \
            with "×N until TIME" for N uses of one item by one process that were logged together), \
            the application with its process id, the item or collection, and for grants and revocations the \
            program that asked. cofferd keeps the log in $XDG_DATA_HOME/coffer/access.log (mode 0600, \
            with the previous part in access.log.1), sealed with a key of each keyring: only entries of \
            unlocked keyrings are shown, and how many others there are is said on stderr. Damage or tampering \
            found in the log is reported on stderr, and the command then exits with status 1. The log never \
            holds secrets or labels. See ACCESS-CONTROL.md in Coffer's documentation directory.
            """)

    @Option(help: ArgumentHelp("Only entries from this time on: seconds since 1970, an ISO 8601 date or time "
                               + "(UTC unless it names a zone), or an age such as 30m, 12h, 7d.", valueName: "time"))
    var since: String?
    @Option(help: ArgumentHelp("Only entries whose application identity or name contains this text.",
                               valueName: "application"))
    var app: String?
    @Option(help: ArgumentHelp("Only entries about this collection (alias, label, id or object path).",
                               valueName: "collection"))
    var collection: String?
    @Option(help: ArgumentHelp("Only entries about this item (object path).", valueName: "item"))
    var item: String?
    @OptionGroup var output: OutputOptions

    func execute() async throws {
        let start = try since.map { text throws -> UInt64 in
            guard let time = Self.parseTime(text, now: Date()) else {
                throw CofferError.badArguments("'\(text)' is not a time (seconds, ISO 8601, or an age like 12h)")
            }
            return time
        } ?? 0
        try await ProviderConnection.with { service in
            var collectionID: String?
            if let collection {
                // A collection deleted since is still named in the log by its id.
                let path = try? await service.resolveCollection(collection)
                collectionID = path.map { CollectionReference(path: $0).id } ?? collection
            }
            let report = try await service.accessLog(since: start)
            let entries = report.entries.filter { entry in
                (app.map { entry.application.contains($0) || entry.name.contains($0) } ?? true)
                    && (collectionID.map { entry.collection == $0 } ?? true)
                    && (item.map { entry.item == $0 } ?? true)
            }
            if output.json { try JSONOutput.print(entries) } else { entries.forEach { Console.print(Self.line($0)) } }
            try Self.reportUnread(report)
        }
    }

    /// Says on stderr what could not be shown and why; damage or tampering ends the command with status 1.
    static func reportUnread(_ report: AccessLogReport) throws {
        if report.locked > 0 {
            Console.error("\(report.locked) entries belong to locked keyrings and are not shown; unlock them to see"
                          + " them")
        }
        if report.keyGone > 0 {
            Console.error("\(report.keyGone) entries belong to keyrings deleted since and cannot be read")
        }
        for problem in report.problems { Console.error("access log: \(problem)") }
        guard report.problems.isEmpty else {
            throw CofferError(.failure, "the access log was damaged or tampered with (see above); the entries shown"
                              + " opened and are intact")
        }
    }

    static func line(_ entry: AccessLogLine) -> String {
        func iso(_ seconds: UInt64) -> String { Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601) }
        let what = entry.item.isEmpty ? (entry.collection.isEmpty ? "-" : "collection \(entry.collection)")
            : entry.item
        let by = entry.requester.isEmpty ? "" : "\tby \(entry.requester)"
        // Repeated uses are one entry: the time is the first, and the outcome says how many and until when.
        let outcome = entry.count > 1 ? "\(entry.outcome) ×\(entry.count) until \(iso(entry.lastTime))" : entry.outcome
        return "\(iso(entry.time))\t\(outcome)\t\(entry.application) (pid \(entry.pid))\t\(what)\(by)"
    }

    /// Seconds since 1970 for `text`: a number of seconds, an ISO 8601 date or date and time, or an age before
    /// `now` (`30s`, `15m`, `12h`, `7d`).
    static func parseTime(_ text: String, now: Date) -> UInt64? {
        if let seconds = UInt64(text) { return seconds }
        if let unit = text.last, let count = Double(text.dropLast()), count >= 0 {
            let scale: Double? = switch unit {
            case "s": 1
            case "m": 60
            case "h": 3600
            case "d": 86400
            default: nil
            }
            if let scale { return UInt64(max(now.timeIntervalSince1970 - count * scale, 0)) }
        }
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withFullDate],
                                                       [.withFullDate, .withTime, .withColonSeparatorInTime,
                                                        .withDashSeparatorInDate]] {
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return UInt64(max(date.timeIntervalSince1970, 0)) }
        }
        return nil
    }
}

// SPDX-License-Identifier: Apache-2.0
// Keeps every cofferd and coffer log of a test run, with the secrets the run used, so a scan can prove none leaked.

public import Foundation
import Glibc

/// The logs of a whole test run and the sensitive values the run used.
///
/// When `COFFER_TEST_LOG_ARCHIVE` names a directory, ``TestBus/stop()`` copies the logs of everything that ran on
/// the bus (cofferd's standard output and error, its pinentries' command logs, coffer's standard error, the bus's
/// own log; not gnome-keyring's, which is not ours) into `<archive>/<bus>/` before it removes the scratch
/// directory, and tests ``register(_:)`` the secrets, passwords, labels and attribute values they send. `make test`
/// then scans the archive (`Secrets hygiene` suite) once the suite has finished.
public enum TestLogArchive {
    /// Values shorter than this are not registered: "v1" or "mine" occur in ordinary log text by chance.
    public static let minimumLength = 8

    /// The archive directory, when the run keeps one.
    public static var directory: URL? {
        guard let path = ProcessInfo.processInfo.environment["COFFER_TEST_LOG_ARCHIVE"], !path.isEmpty else {
            return nil
        }
        return URL(fileURLWithPath: path, isDirectory: true)
    }

    /// Whether a file in a bus directory is a log of ours.
    static func isArchived(_ name: String) -> Bool {
        !name.hasPrefix("gnome-keyring") && (name.hasSuffix(".log") || name.hasSuffix(".pinentry-log"))
    }

    /// Copies the logs in `busDirectory` into `archive` (by default the run's; a no-op without one).
    public static func collect(from busDirectory: URL, into archive: URL? = directory) {
        guard let archive else { return }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: busDirectory.path)) ?? []
        let target = archive.appendingPathComponent(busDirectory.lastPathComponent, isDirectory: true)
        for name in names where isArchived(name) {
            try? FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            try? FileManager.default.copyItem(at: busDirectory.appendingPathComponent(name),
                                              to: target.appendingPathComponent(name))
        }
    }

    /// Records values no log may contain (a no-op without an archive). Each is one base64 line of `values`, written
    /// with a single append, so tests in parallel processes never interleave.
    public static func register(_ values: [String], into archive: URL? = directory) {
        guard let archive else { return }
        let lines = values.filter { $0.utf8.count >= minimumLength }.map { Data($0.utf8).base64EncodedString() + "\n" }
        guard !lines.isEmpty else { return }
        try? FileManager.default.createDirectory(at: archive, withIntermediateDirectories: true)
        let fd = open(archive.appendingPathComponent("values").path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = Array(lines.joined().utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// The values registered in `archive`.
    public static func registeredValues(in archive: URL) -> Set<String> {
        let text = (try? String(contentsOf: archive.appendingPathComponent("values"), encoding: .utf8)) ?? ""
        return Set(text.split(separator: "\n").compactMap { Data(base64Encoded: String($0)) }
            .map { String(decoding: $0, as: UTF8.self) })
    }

    /// Every archived log, as (path relative to the archive, contents).
    public static func logs(in archive: URL) -> [(name: String, bytes: Data)] {
        let enumerator = FileManager.default.enumerator(atPath: archive.path)
        var logs: [(String, Data)] = []
        while let name = enumerator?.nextObject() as? String {
            guard isArchived((name as NSString).lastPathComponent),
                  let bytes = FileManager.default.contents(atPath: archive.appendingPathComponent(name).path)
            else { continue }
            logs.append((name, bytes))
        }
        return logs
    }
}

/// Finds sensitive values in log text, as typed and in the encodings a careless log line would use.
public struct LeakScanner: Sendable {
    /// One value found in one log.
    public struct Finding: Sendable, CustomStringConvertible {
        public var log: String
        /// How the value appeared: `text`, `hex`, `base64` or `bytes`.
        public var form: String
        /// The value with all but its first two characters masked, so the report does not repeat the leak.
        public var masked: String
        public var description: String { "\(log): a registered value (\(masked)) appears as \(form)" }
    }

    private let patterns: [(form: String, bytes: Data, masked: String)]

    /// - Parameter values: what must not appear; shorter than ``TestLogArchive/minimumLength`` is ignored.
    public init(values: some Sequence<String>) {
        var patterns: [(String, Data, String)] = []
        for value in Set(values) where value.utf8.count >= TestLogArchive.minimumLength {
            let bytes = Array(value.utf8)
            let masked = String(value.prefix(2)) + String(repeating: "•", count: max(0, value.count - 2))
            patterns.append(("text", Data(bytes), masked))
            patterns.append(("hex", Data(bytes.map { String(format: "%02x", $0) }.joined().utf8), masked))
            patterns.append(("base64", Data(Data(bytes).base64EncodedString().dropLast(4).utf8), masked))
            // Swift's description of [UInt8]: "[115, 101, 99, …"
            patterns.append(("bytes", Data(("[" + bytes.prefix(8).map(String.init).joined(separator: ", ")).utf8),
                             masked))
        }
        self.patterns = patterns
    }

    /// Every registered value that occurs in `bytes`.
    public func findings(in bytes: Data, log: String) -> [Finding] {
        patterns.filter { Self.occurs($0.bytes, in: bytes) }.map { Finding(log: log, form: $0.form, masked: $0.masked) }
    }

    /// Whether `needle` occurs in `haystack`: memchr for the first byte, memcmp for the rest, since a whole test
    /// run's logs (or a process's memory) against thousands of values is too slow with `Data.range(of:)`.
    public static func occurs(_ needle: Data, in haystack: Data) -> Bool {
        guard let first = needle.first else { return false }
        return haystack.withUnsafeBytes { hay in
            guard var cursor = hay.baseAddress else { return false }
            let end = cursor + hay.count
            return needle.withUnsafeBytes { wanted in
                guard let wantedBase = wanted.baseAddress else { return false }
                while end - cursor >= wanted.count, let hit = memchr(cursor, Int32(first), end - cursor) {
                    let candidate = UnsafeRawPointer(hit)
                    if end - candidate >= wanted.count && memcmp(candidate, wantedBase, wanted.count) == 0 {
                        return true
                    }
                    cursor = candidate + 1
                }
                return false
            }
        }
    }
}

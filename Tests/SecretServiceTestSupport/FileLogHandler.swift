// SPDX-License-Identifier: Apache-2.0
// A swift-log handler that appends lines to a file, so in-process daemon logs can be read like subprocess ones.

import Foundation
import Logging
import Synchronization

/// An append-only log file shared by every handler of one daemon.
final class FileLogSink: Sendable {
    private let handle: Mutex<FileHandle>

    init(url: URL) throws {
        if !FileManager.default.fileExists(atPath: url.path) {
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        self.handle = Mutex(handle)
    }

    func write(_ line: String) {
        handle.withLock { try? $0.write(contentsOf: Data(line.utf8)) }
    }
}

/// Writes `level label: message key=value…` lines, like swift-log's stream handler.
struct FileLogHandler: LogHandler {
    let label: String
    let sink: FileLogSink
    var logLevel: Logger.Level = .debug
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let rendered = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        sink.write("\(event.level) \(label): \(event.message)\(rendered.isEmpty ? "" : " " + rendered)\n")
    }
}

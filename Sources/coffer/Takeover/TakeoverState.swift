// SPDX-License-Identifier: Apache-2.0
// The record of what `coffer takeover` changed, kept so that `--undo` puts back exactly that and a second run
// neither changes nor imports anything twice.

import Foundation

/// A change takeover made, with what is needed to reverse it.
enum AppliedChange: Codable, Sendable, Equatable {
    /// A file written by takeover; `original` is what was there before (`nil`: there was no file).
    case wroteFile(path: String, original: String?, content: String)
    /// A unit masked for this user; `link` is the `/dev/null` link `systemctl --user mask` makes.
    case maskedUnit(name: String, link: String)
}

/// A keyring file already imported, recognised by size and modification time so that an unchanged file is not
/// read (or its password asked for) again.
struct ImportedFile: Codable, Sendable, Equatable {
    var path: String
    var size: Int
    var modified: Double
    var collection: String
    var items: Int

    /// The facts of `path` now, for comparison; `nil` when it cannot be read.
    static func fingerprint(_ path: String) -> (size: Int, modified: Double)? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let size = (attributes[.size] as? NSNumber)?.intValue,
              let date = attributes[.modificationDate] as? Date
        else { return nil }
        return (size, date.timeIntervalSince1970)
    }
}

/// The state file: `$XDG_CONFIG_HOME/coffer/takeover.json`.
struct TakeoverState: Codable, Sendable {
    var version = 1
    var changes: [AppliedChange] = []
    var imports: [ImportedFile] = []

    /// Reads the state; a missing file is an empty state, a damaged one an error (undoing from a guess could
    /// remove the user's own files).
    static func load(_ path: String) throws -> TakeoverState {
        guard FileManager.default.fileExists(atPath: path) else { return TakeoverState() }
        do {
            return try JSONDecoder().decode(TakeoverState.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw CofferError(.badData, "\(path) cannot be read (\(error)); look at it, or move it away to start over")
        }
    }

    /// Writes the state atomically (after every change, so an interrupted run can still be undone).
    func save(_ path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            try encoder.encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CofferError(.ioError, "cannot write \(path): \(error)")
        }
    }

    /// Whether `path` was imported and has not changed since.
    func alreadyImported(_ path: String) -> Bool {
        guard let now = ImportedFile.fingerprint(path) else { return false }
        return imports.contains { $0.path == path && $0.size == now.size && $0.modified == now.modified }
    }

    mutating func recordImport(_ record: ImportedFile) {
        imports.removeAll { $0.path == record.path }
        imports.append(record)
    }
}

// SPDX-License-Identifier: Apache-2.0
// Reading the sealed access log back: the entries the unlocked collections open, and every sign of tampering.

import SecretCrypto

/// What `coffer access log` gets: the entries it may see, how many it may not, and what was found wrong.
struct AccessLogReading: Sendable, Equatable {
    /// Oldest first.
    var entries: [AccessLogEntry] = []
    /// Entries of collections that are locked now.
    var locked = 0
    /// Entries of collections that no longer exist (deleted since): their key is gone, so they can be neither
    /// opened nor checked.
    var keyGone = 0
    /// Signs of damage or tampering, one sentence each, naming files, positions and collection ids only.
    var problems: [String] = []
}

/// Verifies and opens the records of the log files, oldest file first.
struct AccessLogReader {
    /// One file's name (for messages) and bytes.
    struct File {
        var name: String
        var bytes: [UInt8]
    }

    /// The current log key of each unlocked collection.
    var keys: [String: SecretBytes]
    /// Collections that exist and are locked (their records count as ``AccessLogReading/locked``).
    var lockedCollections: Set<String>

    func read(_ files: [File], since: UInt64) -> AccessLogReading {
        var reading = AccessLogReading()
        let parsed = files.map { parse($0, into: &reading) }
        let keysByID = recoverKeys(parsed)
        for (file, (fileID, records)) in zip(files, parsed) {
            guard let fileID, let version = AccessLogFormat.version(ofHeader: file.bytes[...]) else { continue }
            var previousTags: [String: [UInt8]] = [:]
            var sequences: [String: UInt64] = [:]
            var expectedIndex: UInt64 = 1
            var reportedOrder = false
            for record in records {
                defer {
                    previousTags[record.collection] = record.tag
                    sequences[record.collection] = record.sequence
                }
                let previous = previousTags[record.collection]
                // Wrapping: a record after one numbered at the top of the range is out of order, not a crash.
                let expectedSequence = (sequences[record.collection] ?? 0) &+ 1
                if !reportedOrder && (record.index != expectedIndex || record.sequence != expectedSequence) {
                    reading.problems.append("\(file.name): records are missing or out of order before record"
                                            + " \(expectedIndex)")
                    reportedOrder = true
                }
                expectedIndex += 1
                guard record.kind == .entry else { continue }
                guard let key = keysByID[record.keyID] else {
                    if lockedCollections.contains(record.collection) {
                        reading.locked += 1
                    } else if keys[record.collection] != nil {
                        // cofferd writes every change of a collection's key into the log as it happens.
                        reading.problems.append("\(file.name): record \(record.index) (collection"
                                                + " “\(record.collection)”) is sealed with a key the log does not"
                                                + " know: it was changed, or a change of the keyring's key was not"
                                                + " recorded")
                    } else {
                        reading.keyGone += 1
                    }
                    continue
                }
                guard let payload = try? record.open(key: key, fileID: fileID, previousTag: previous),
                      let entries = Self.entries(in: payload.copyBytes(), fileVersion: version)
                else {
                    reading.problems.append("\(file.name): record \(record.index) (collection"
                                            + " “\(record.collection)”) does not open: it or an earlier record"
                                            + " was changed, removed or moved")
                    continue
                }
                reading.entries += entries.filter { $0.lastTime >= since }
            }
        }
        return reading
    }

    /// The entries of an entry record's plaintext: lines each ending in LF, of the line version of the file's
    /// version (a changed version byte makes every record of the file fail), one per record in a version 1 file.
    /// `nil` when any line is not an entry.
    static func entries(in payload: [UInt8], fileVersion: UInt8) -> [AccessLogEntry]? {
        guard payload.last == UInt8(ascii: "\n") else { return nil }
        let lines = payload.dropLast().split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard fileVersion > 1 || lines.count == 1 else { return nil }
        var entries: [AccessLogEntry] = []
        entries.reserveCapacity(lines.count)
        for line in lines {
            guard let entry = AccessLogEntry(line: line, version: String(fileVersion)) else { return nil }
            entries.append(entry)
        }
        return entries
    }

    /// The collections whose keys seal records of `files`: the keys a reading asks for.
    static func collections(in files: [File]) -> Set<String> {
        var names: Set<String> = []
        for file in files where AccessLogFormat.fileID(ofHeader: file.bytes[...]) != nil {
            var rest = file.bytes.dropFirst(AccessLogFormat.headerCount)
            while case .record(let record, let count) = AccessLogRecord.parse(rest) {
                names.insert(record.collection)
                rest = rest.dropFirst(count)
            }
        }
        return names
    }

    /// The file's id and records; damage is reported and ends the file.
    private func parse(_ file: File, into reading: inout AccessLogReading) -> ([UInt8]?, [AccessLogRecord]) {
        guard !file.bytes.isEmpty else { return (nil, []) }
        guard let fileID = AccessLogFormat.fileID(ofHeader: file.bytes[...]) else {
            reading.problems.append("\(file.name): not an access log of this version (its header is damaged)")
            return (nil, [])
        }
        var records: [AccessLogRecord] = []
        var rest = file.bytes.dropFirst(AccessLogFormat.headerCount)
        while !rest.isEmpty {
            switch AccessLogRecord.parse(rest) {
            case .record(let record, let count):
                records.append(record)
                rest = rest.dropFirst(count)
            case .torn:
                reading.problems.append("\(file.name): the file ends inside a record (cut short)")
                return (fileID, records)
            case .damaged:
                reading.problems.append("\(file.name): damaged at byte \(rest.startIndex); the rest cannot be read")
                return (fileID, records)
            }
        }
        return (fileID, records)
    }

    /// The current keys by key id, and the earlier keys that key-change records sealed with them hold, and so on
    /// back: a collection whose master key changed while cofferd ran still opens its older records.
    private func recoverKeys(_ parsed: [([UInt8]?, [AccessLogRecord])]) -> [[UInt8]: AccessLogKey] {
        var byID: [[UInt8]: AccessLogKey] = [:]
        for key in keys.values { if let key = try? AccessLogKey(key) { byID[key.id] = key } }
        var changes: [(fileID: [UInt8], record: AccessLogRecord, previousTag: [UInt8]?)] = []
        for (fileID, records) in parsed {
            guard let fileID else { continue }
            var previousTags: [String: [UInt8]] = [:]
            for record in records {
                if record.kind == .keyChange {
                    changes.append((fileID, record, previousTags[record.collection]))
                }
                previousTags[record.collection] = record.tag
            }
        }
        var progress = true
        while progress {
            progress = false
            for change in changes {
                guard let key = byID[change.record.keyID],
                      let earlier = try? change.record.open(key: key, fileID: change.fileID,
                                                            previousTag: change.previousTag),
                      let recovered = try? AccessLogKey(earlier), byID[recovered.id] == nil else { continue }
                byID[recovered.id] = recovered
                progress = true
            }
        }
        return byID
    }
}

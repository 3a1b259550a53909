// SPDX-License-Identifier: Apache-2.0
// Scratch folders, keys, items and clocks for the journal tests.

@testable import CollectionSync
import Glibc
import SecretCrypto
import Synchronization

/// A temporary directory, removed with everything in it when the value is released.
final class ScratchFolder {
    let path: String

    init() throws {
        var template = Array("/tmp/coffer-sync-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw SyncIOError("cannot create", "/tmp/coffer-sync-XXXXXX") }
        path = String(cString: made)
    }

    deinit { removeTree(path) }

    private func removeTree(_ directory: String) {
        guard let stream = opendir(directory) else { return }
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            let child = directory + "/" + name
            if entry.pointee.d_type == UInt8(DT_DIR) { removeTree(child) } else { unlink(child) }
        }
        closedir(stream)
        rmdir(directory)
    }
}

/// A wall clock the test moves by hand.
final class ManualWallClock: Sendable {
    private let now: Mutex<UInt64>

    init(_ start: UInt64 = 1_700_000_000_000) { now = Mutex(start) }

    func set(_ value: UInt64) { now.withLock { $0 = value } }
    func advance(_ milliseconds: UInt64) { now.withLock { $0 += milliseconds } }

    var reading: @Sendable () -> UInt64 { { [self] in now.withLock { $0 } } }
}

enum Fixture {
    /// Fresh random keys for a fresh collection.
    static func keys(collection: SyncCollectionID = .random()) throws -> SyncKeys {
        try SyncKeys(masterKey: SecureRandom.secretBytes(count: 32), collection: collection)
    }

    static func secret(_ text: String) throws -> SecretBytes { try SecretBytes(copying: Array(text.utf8)) }

    static func content(_ label: String, secret text: String = "s3cret", attributes: [String: String] = ["a": "1"])
        throws -> SyncItemContent {
        SyncItemContent(label: label, attributes: attributes, contentType: "text/plain",
                        secret: try secret(text), created: 1_700_000_000, modified: 1_700_000_001)
    }

    /// A journal of `count` puts by `device`, written through the real writer.
    static func journal(in folder: SyncFolder, device: DeviceID, keys: SyncKeys, count: Int,
                        clock: ManualWallClock = ManualWallClock()) throws -> [SyncRecord] {
        let writer = try JournalWriter.open(folder: folder, device: device, keys: keys, wallClock: clock.reading).writer
        return try (0..<count).map { index in
            clock.advance(1)
            return try writer.append(.put(.random(), content("item \(index)")))
        }
    }

    static func read(_ path: String) throws -> [UInt8] {
        guard let bytes = try SyncFiles.read(path) else { throw SyncIOError(message: "\(path) is missing") }
        return bytes
    }

    /// Writes `bytes` over `path` with plain POSIX calls, as a sync engine (or someone with access) would.
    static func write(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SyncIOError("cannot open", path) }
        defer { close(fd) }
        try SyncFiles.writeAll(fd, bytes, path: path)
    }

    /// Appends raw bytes (a torn record) the way a killed writer leaves them.
    static func appendRaw(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { throw SyncIOError("cannot open", path) }
        defer { close(fd) }
        try SyncFiles.writeAll(fd, bytes, path: path)
    }

    /// Where each record of a journal file starts and ends (header first), found without keys.
    static func recordRanges(_ bytes: [UInt8], keys: SyncKeys) throws -> (header: Int, records: [Range<Int>]) {
        guard case .header(_, let headerLength, _) = try JournalHeader.decode(bytes[...], keys: keys) else {
            throw SyncFormatError("no header")
        }
        var ranges: [Range<Int>] = []
        var offset = headerLength
        while case .complete(_, _, _, let end) = try JournalRecordCodec.frame(in: bytes, at: offset) {
            ranges.append(offset..<end)
            offset = end
        }
        return (headerLength, ranges)
    }
}

extension Result where Success == JournalRead, Failure == JournalDamage {
    /// The records of a successful read; an empty list for a failed one (tests check `damage` separately).
    var records: [SyncRecord] { (try? get())?.records ?? [] }
    var damage: JournalDamage? {
        if case .failure(let damage) = self { return damage }
        return nil
    }
}
